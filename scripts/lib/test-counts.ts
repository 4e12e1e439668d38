import { readFileSync } from "node:fs";

// Test-case counts for test-all's final line, read from what the runners already produce: node:test's TAP
// summary lines (`# pass N`, `# fail N`, echoed by run-node-tests.ts) and Playwright's JSON report.

export type TestCounts = { pass: number; fail: number };

export const ZERO_COUNTS: TestCounts = { pass: 0, fail: 0 };

export const addCounts = (a: TestCounts, b: TestCounts): TestCounts => ({
  pass: a.pass + b.pass,
  fail: a.fail + b.fail,
});

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "");

/** Sums every node:test summary block in a run's output (integration prints one per database). */
export const countNodeTestOutput = (output: string): TestCounts => {
  let counts = ZERO_COUNTS;
  for (const line of stripAnsi(output).split("\n")) {
    const match = /^# (pass|fail) (\d+)\r?$/.exec(line);
    if (!match) continue;
    const n = Number(match[2]);
    counts = addCounts(counts, match[1] === "pass" ? { pass: n, fail: 0 } : { pass: 0, fail: n });
  }
  return counts;
};

type PlaywrightStats = { expected?: number; unexpected?: number; flaky?: number; skipped?: number };

/**
 * Counts from Playwright's JSON reporter: `expected` passed, `unexpected` failed, `flaky` passed on a retry
 * (counted as passed, as Playwright's exit code does). Undefined when there is no report.
 */
export const readPlaywrightCounts = (reportFile: string): (TestCounts & { skipped: number }) | undefined => {
  let stats: PlaywrightStats | undefined;
  try {
    stats = (JSON.parse(readFileSync(reportFile, "utf8")) as { stats?: PlaywrightStats }).stats;
  } catch {
    return undefined;
  }
  if (!stats) return undefined;
  return {
    pass: (stats.expected ?? 0) + (stats.flaky ?? 0),
    fail: stats.unexpected ?? 0,
    skipped: stats.skipped ?? 0,
  };
};
