import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// Runs test files with node:test + tsx the one way every runner in this repo uses:
// - `--conditions=react-server`, so `import "server-only"` resolves to its empty module (the node:test child
//   processes inherit the flag);
// - `--import tsx` (tsx ≥ 4 registers its ESM and CJS hooks through `--import`);
// - `--test-concurrency=2`, one file per core on these machines;
// - the `spec` reporter on stdout for people, and the `tap` reporter to a file whose summary block (`# tests`,
//   `# pass`, `# fail`, …) is echoed verbatim at the end, because CI reads those lines.
// No `--test-force-exit`: on node 20 it cuts the file reporter short, losing the summary. Test files close
// what they open (e2e/support/test-db.ts → closeTestDatabase).

export type NodeTestResult = { exitCode: number; pass: number; fail: number };

/** Environment to hand a child process: ours, with `unset` removed and `set` applied. */
export const childEnv = (opts: { set?: Record<string, string>; unset?: string[] }): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.set };
  for (const name of opts.unset ?? []) delete env[name];
  return env;
};

const SUMMARY_LINE = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) \S+$/;

const readSummary = (tapFile: string): string[] => {
  let tap: string;
  try {
    tap = readFileSync(tapFile, "utf8");
  } catch {
    return [];
  }
  // Top-level summary lines are unindented; nested suites' lines are indented.
  return tap.split("\n").filter((line) => SUMMARY_LINE.test(line));
};

const countOf = (lines: string[], name: string): number => {
  const line = lines.find((l) => l.startsWith(`# ${name} `));
  return line ? Number(line.split(" ")[2]) : 0;
};

/** Runs `files` with node:test; `nodeArgs` are extra node flags such as `--test-name-pattern=…`. */
export const runNodeTests = async (opts: {
  files: string[];
  env: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  cwd: string;
}): Promise<NodeTestResult> => {
  const reportDir = mkdtempSync(path.join(tmpdir(), "acs-node-test-"));
  const tapFile = path.join(reportDir, "report.tap");
  // Also on exit: the PostgreSQL harness's signal handlers end the process without unwinding `finally`.
  const removeReportDir = (): void => rmSync(reportDir, { recursive: true, force: true });
  process.once("exit", removeReportDir);
  const args = [
    "--conditions=react-server",
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=2",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tapFile}`,
    ...(opts.nodeArgs ?? []),
    ...opts.files,
  ];
  try {
    const exitCode = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env, stdio: "inherit" });
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
    const summary = readSummary(tapFile);
    if (summary.length === 0) {
      console.log(`# node:test wrote no summary (exit code ${exitCode})`);
      return { exitCode: exitCode || 1, pass: 0, fail: 0 };
    }
    console.log(summary.join("\n"));
    const fail = countOf(summary, "fail");
    return { exitCode: exitCode || (fail > 0 ? 1 : 0), pass: countOf(summary, "pass"), fail };
  } finally {
    process.off("exit", removeReportDir);
    removeReportDir();
  }
};

/** Splits a runner's argv: `--flags` go to node (e.g. `--test-name-pattern=x`), the rest filter file paths. */
export const splitArgs = (
  argv: string[],
  ownFlags: string[] = [],
): { nodeArgs: string[]; filters: string[] } => {
  const nodeArgs: string[] = [];
  const filters: string[] = [];
  for (const arg of argv) {
    if (ownFlags.some((flag) => arg === flag || arg.startsWith(`${flag}=`))) continue;
    (arg.startsWith("-") ? nodeArgs : filters).push(arg);
  }
  return { nodeArgs, filters };
};
