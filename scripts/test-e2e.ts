import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";

import { ensureChromium } from "./ensure-os-packages";
import { PLAYWRIGHT_JSON_REPORT, REPO_ROOT } from "./lib/paths";
import { readPlaywrightCounts } from "./lib/test-counts";

// `npm run test:e2e`: the Playwright projects against the built service on a fresh PGlite (playwright.config.ts
// starts it): `http` (real HTTP, no browser) and `ui` (Debian's chromium). `npm run test:e2e:ui` runs only `ui`.
// Extra arguments go to `playwright test` (a file, `--grep`, …).

const onlyUi = process.argv.includes("--ui-only");
const extraArgs = process.argv.slice(2).filter((a) => a !== "--ui-only");
const projects = onlyUi ? ["--project=ui"] : ["--project=http", "--project=ui"];

console.log(`\n=== End-to-end tests (Playwright: ${onlyUi ? "ui" : "http + ui"}, Debian chromium) ===\n`);
try {
  ensureChromium();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

// A report left by an earlier run must not be mistaken for this run's (test-all reads it).
rmSync(PLAYWRIGHT_JSON_REPORT, { force: true });

const exitCode = await new Promise<number>((resolve, reject) => {
  const child = spawn(
    path.join(REPO_ROOT, "node_modules", ".bin", "playwright"),
    ["test", ...projects, ...extraArgs],
    { cwd: REPO_ROOT, stdio: "inherit" },
  );
  child.once("error", reject);
  child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});

const counts = readPlaywrightCounts(PLAYWRIGHT_JSON_REPORT);
console.log(
  counts
    ? `End-to-end tests: ${counts.pass} passed, ${counts.fail} failed, ${counts.skipped} skipped.`
    : `End-to-end tests: Playwright wrote no report (exit code ${exitCode}).`,
);
process.exit(exitCode);
