import assert from "node:assert/strict";
import { test } from "node:test";

import { explainLine, runStep } from "./run-step";

// A set-up step of `npm start` never sits silent and never shows Next's "⨯" for a setting that is off on purpose
// as if it were an error.

const step = async (script: string, heartbeatMs: number) => {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runStep("Build (next build)", process.execPath, ["-e", script], {
    cwd: process.cwd(),
    heartbeatMs,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { status, out, err };
};

test("a quiet step gets a 'still working' line per quiet period, with the time so far", async () => {
  const { status, out } = await step(
    `console.log("Creating an optimized production build ..."); setTimeout(() => console.log("✓ Compiled"), 1000)`,
    200,
  );
  assert.equal(status, 0);
  assert.equal(out[0], "\n▶ Build (next build)");
  // between Next's line and the next one, a second of silence: lines saying it is still working
  const quiet = out.slice(
    out.indexOf("Creating an optimized production build ..."),
    out.indexOf("✓ Compiled"),
  );
  const still = quiet.filter((line) =>
    /^ {2}… Build \(next build\): still working \(\d+ s so far\)$/.test(line),
  );
  assert.ok(still.length >= 2, out.join("\n"));
  // the child's own exit can take a quiet period more on a busy machine: one more such line is fine there
  assert.equal(out.filter((line) => !line.includes("still working")).at(-2), "✓ Compiled");
  assert.match(out.at(-1)!, /^✔ Build \(next build\) \(\d+\.\d s\)$/);
});

test("Next's ⨯ for preloadEntriesOnStart says it is off on purpose; other lines pass unchanged", async () => {
  const { out, err } = await step(
    `console.log("- Experiments (use with caution):"); console.log("  ⨯ preloadEntriesOnStart"); console.log("  ⨯ somethingElse"); console.error("⨯ a real error")`,
    60_000,
  );
  assert.ok(out.includes("- Experiments (use with caution):"), out.join("\n"));
  const explained = out.find((line) => line.includes("preloadEntriesOnStart"));
  assert.equal(
    explained,
    "  ⨯ preloadEntriesOnStart — off on purpose (next.config.mjs): each route loads on its first request, so a start is ready sooner; not an error",
  );
  assert.ok(out.includes("  ⨯ somethingElse"));
  assert.deepEqual(err, ["⨯ a real error"]);
  // coloured as Next prints it to a terminal
  assert.match(explainLine("  \u001b[1m⨯\u001b[22m preloadEntriesOnStart"), /off on purpose/);
});

test("a failing step reports its exit status", async () => {
  const { status, out } = await step(`process.exit(3)`, 60_000);
  assert.equal(status, 3);
  assert.equal(out.at(-1), "✖ Build (next build) failed (exit 3)");
});
