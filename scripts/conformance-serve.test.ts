import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { REPO_ROOT } from "./lib/paths";

// `npm run conformance:serve` refuses before it opens or writes anything: under NODE_ENV=production, on a data dir
// that holds something, without a simulation secret. (What it serves is tested in e2e/api/conformance.)

const dir = mkdtempSync(path.join(tmpdir(), "acs-conformance-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) => {
  const { NODE_ENV: _inherited, ...rest } = process.env;
  return spawnSync(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "scripts/conformance-serve.ts", ...args],
    { cwd: REPO_ROOT, env: { ...rest, ...env } as NodeJS.ProcessEnv, encoding: "utf8", timeout: 60_000 },
  );
};

test("refused under NODE_ENV=production, whatever the data dir", () => {
  const out = run([`--data-dir=${path.join(dir, "fresh")}`, "--simulation-secret=secret-123"], {
    NODE_ENV: "production",
  });
  assert.equal(out.status, 2, out.stderr);
  assert.match(out.stderr, /refused under NODE_ENV=production/);
});

test("refused on a data dir that is not empty, which it leaves as it was", () => {
  const used = path.join(dir, "used");
  const kept = path.join(used, "PG_VERSION");
  rmSync(used, { recursive: true, force: true });
  mkdirSync(used, { recursive: true });
  writeFileSync(kept, "17");
  const out = run([`--data-dir=${used}`, "--simulation-secret=secret-123"]);
  assert.equal(out.status, 2, out.stderr);
  assert.match(out.stderr, /is not empty/);
  assert.deepEqual(readdirSync(used), ["PG_VERSION"]);
});

test("refused without a data dir or without a simulation secret of 8+ characters", () => {
  assert.match(run(["--simulation-secret=secret-123"]).stderr, /--data-dir=.* is required/);
  const fresh = path.join(dir, "fresh2");
  assert.match(run([`--data-dir=${fresh}`]).stderr, /--simulation-secret=.* is required/);
  assert.match(run([`--data-dir=${fresh}`, "--simulation-secret=short"]).stderr, /at least 8 characters/);
  assert.match(run(["--bogus=1"]).stderr, /unknown option --bogus/);
});
