import { spawn } from "node:child_process";

import { PLAYWRIGHT_JSON_REPORT, REPO_ROOT } from "./lib/paths";
import {
  addCounts,
  countNodeTestOutput,
  readPlaywrightCounts,
  ZERO_COUNTS,
  type TestCounts,
} from "./lib/test-counts";

// `npm run test:all`: every check CI runs, in order (the three static checks side by side), each through its
// package.json script (STYLE.md §11), and stops at the first failure. Ends with a per-step timing table and, as the very last line, the test-case count
// over node:test and Playwright: `N passed, N failed`.

type Step = {
  name: string;
  script: string;
  /** How the step's test cases are counted, if it runs any. */
  counts?: "node-test" | "playwright";
  /**
   * Steps of one group run at the same time, their output printed whole as each ends. The static checks are
   * single-threaded for much of their run; side by side on two cores they take about half their sum.
   */
  group?: string;
};

const STEPS: Step[] = [
  { name: "typecheck", script: "typecheck", group: "static" },
  { name: "lint", script: "lint", group: "static" },
  { name: "format", script: "format:check", group: "static" },
  { name: "unit tests", script: "test", counts: "node-test" },
  { name: "integration tests (PGlite + PostgreSQL)", script: "test:integration", counts: "node-test" },
  { name: "end-to-end tests (Playwright http + ui)", script: "test:e2e", counts: "playwright" },
  // the Dockerfile's RUN and CMD lines as a non-root user in a copy of the build context, reusing the e2e step's
  // build and the installed node_modules (~30 s; scripts/check-dockerfile-commands.ts)
  { name: "Dockerfile commands as a non-root user", script: "check:dockerfile" },
  // issue #4: a few checkout flows over HTTP on PostgreSQL (reuses the build the e2e step made; ~20 s)
  { name: "checkout bench smoke (PostgreSQL)", script: "bench:checkout:smoke" },
  // real-process crash tests on PostgreSQL (card charge, crypto settlement, webhook worker); reuse the e2e build
  { name: "crash tests (card, crypto, webhooks; PostgreSQL)", script: "test:crash" },
];

type StepResult = { step: Step; ok: boolean; seconds: number; counts?: TestCounts };

/**
 * Runs `npm run <script>`, echoing its output as it comes (or, with `buffered`, all at once when it ends) and
 * keeping stdout to read the test counts.
 */
const runScript = (script: string, buffered = false): Promise<{ exitCode: number; stdout: string }> =>
  new Promise((resolve, reject) => {
    // Children write to a pipe, not our terminal: keep their colours when we have a terminal.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // The browser tests must see this code, not a .next build left from an earlier checkout.
      E2E_REBUILD: process.env.E2E_REBUILD ?? "1",
      ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}),
    };
    const child = spawn("npm", ["run", script], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    const held: { stream: NodeJS.WriteStream; chunk: Buffer }[] = [];
    const echo = (stream: NodeJS.WriteStream, chunk: Buffer) =>
      buffered ? held.push({ stream, chunk }) : stream.write(chunk);
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      echo(process.stdout, chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => echo(process.stderr, chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (buffered) console.log(`\n▶ npm run ${script}`);
      for (const { stream, chunk } of held) stream.write(chunk);
      resolve({ exitCode: code ?? (signal ? 1 : 0), stdout: Buffer.concat(chunks).toString("utf8") });
    });
  });

const formatSeconds = (seconds: number): string => `${seconds.toFixed(1)} s`;

const results: StepResult[] = [];
const startedAll = performance.now();

const runStep = async (step: Step, buffered: boolean): Promise<StepResult> => {
  if (!buffered) console.log(`\n▶ ${step.name} (npm run ${step.script})`);
  const started = performance.now();
  const { exitCode, stdout } = await runScript(step.script, buffered);
  const seconds = (performance.now() - started) / 1000;
  const counts =
    step.counts === "node-test"
      ? countNodeTestOutput(stdout)
      : step.counts === "playwright"
        ? (readPlaywrightCounts(PLAYWRIGHT_JSON_REPORT) ?? ZERO_COUNTS)
        : undefined;
  return { step, ok: exitCode === 0, seconds, ...(counts ? { counts } : {}) };
};

for (let i = 0; i < STEPS.length;) {
  const step = STEPS[i]!;
  // the run of consecutive steps that share the step's group (a step without a group runs alone)
  let end = i + 1;
  while (step.group && STEPS[end]?.group === step.group) end += 1;
  const batch = STEPS.slice(i, end);
  const together = batch.length > 1;
  if (together) console.log(`\n▶ ${batch.map((s) => s.name).join(", ")} (side by side)`);
  results.push(...(await Promise.all(batch.map((s) => runStep(s, together)))));
  i += batch.length;
  if (results.some((r) => !r.ok)) break;
}

const total = results.reduce((sum, r) => addCounts(sum, r.counts ?? ZERO_COUNTS), ZERO_COUNTS);
const failedStep = results.find((r) => !r.ok);
const width = Math.max(...STEPS.map((s) => s.name.length));

console.log("\n── Summary ──");
for (const step of STEPS) {
  const result = results.find((r) => r.step === step);
  if (!result) {
    console.log(`  -  ${step.name.padEnd(width)}  not run`);
    continue;
  }
  const counts = result.counts ? `  ${result.counts.pass} passed, ${result.counts.fail} failed` : "";
  console.log(
    `  ${result.ok ? "✔" : "✖"}  ${step.name.padEnd(width)}  ${formatSeconds(result.seconds).padStart(8)}${counts}`,
  );
}
console.log(`  total ${formatSeconds((performance.now() - startedAll) / 1000)}`);
if (failedStep) console.log(`FAILED at: ${failedStep.step.name}`);
console.log(`${total.pass} passed, ${total.fail} failed`);
process.exit(failedStep ? 1 : 0);
