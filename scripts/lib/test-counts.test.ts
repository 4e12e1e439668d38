import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { splitArgs } from "./run-node-tests";
import { countNodeTestOutput, readPlaywrightCounts } from "./test-counts";

test("countNodeTestOutput: sums every node:test summary block and ignores the spec reporter's lines", () => {
  const output = [
    "ℹ pass 7",
    "# tests 8",
    "# pass 7",
    "# fail 1",
    "\u001b[32m# pass 3\u001b[39m",
    "# fail 0",
    "  # pass 99",
    "# passing 5",
  ].join("\n");
  // The indented line is a nested suite's count, already included in the top-level one.
  assert.deepEqual(countNodeTestOutput(output), { pass: 10, fail: 1 });
});

test("readPlaywrightCounts: expected + flaky pass, unexpected fail; no report → undefined", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "acs-counts-"));
  try {
    const file = path.join(dir, "results.json");
    assert.equal(readPlaywrightCounts(file), undefined);
    writeFileSync(file, JSON.stringify({ stats: { expected: 4, unexpected: 2, flaky: 1, skipped: 3 } }));
    assert.deepEqual(readPlaywrightCounts(file), { pass: 5, fail: 2, skipped: 3 });
    writeFileSync(file, "{ truncated");
    assert.equal(readPlaywrightCounts(file), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("splitArgs: flags go to node, other words filter files, the runner's own flags are dropped", () => {
  assert.deepEqual(
    splitArgs(["--db=postgres", "carts", "--test-name-pattern=GET", "e2e/api/catalog"], ["--db"]),
    {
      nodeArgs: ["--test-name-pattern=GET"],
      filters: ["carts", "e2e/api/catalog"],
    },
  );
});
