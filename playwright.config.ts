import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { defineConfig } from "@playwright/test";

import { findFreePortSync } from "./scripts/lib/free-port";
import { PLAYWRIGHT_JSON_REPORT } from "./scripts/lib/paths";

// Browser tests (STYLE.md §9). `npm run test:e2e:ui` installs Debian's chromium when missing, then runs
// `playwright test --project=ui`. `npx playwright install` cannot work on these machines (DECISIONS.md A), so
// the `ui` project drives /usr/bin/chromium with the flags proven there.
//
// The app under test is the built service on a free loopback port with a fresh PGlite data dir in a temp
// folder: scripts/serve.ts migrates it, seeds the demo stores, builds when .next/BUILD_ID is missing, and serves.
// An existing build is reused, which may be older than the code: E2E_REBUILD=1 rebuilds first (test-all sets it).
//
// Playwright evaluates this file in the runner and again in every worker process. The port and the data dir
// are chosen once, in the runner, and handed to the workers through the environment they inherit.

const CHROMIUM_PATH = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

if (!process.env.E2E_PORT) {
  process.env.E2E_PORT = String(findFreePortSync());
}
// The shared server's Sui sandbox listens on a port chosen here, so specs can fund wallets and read balances on the
// chain the server settles on (only the web server gets SUI_SANDBOX_PORT: servers a spec spawns pick their own)
if (!process.env.E2E_SUI_SANDBOX_PORT) {
  process.env.E2E_SUI_SANDBOX_PORT = String(findFreePortSync());
}
if (!process.env.E2E_PGLITE_DIR) {
  const dir = mkdtempSync(path.join(tmpdir(), "acs-e2e-"));
  process.env.E2E_PGLITE_DIR = path.join(dir, "pglite");
  // Only the process that created the folder removes it; Playwright stops the web server before exiting.
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
// The browser tests always run on the embedded database; a DATABASE_URL from the shell must not reach the
// server (Playwright passes its own environment to webServer.command).
delete process.env.DATABASE_URL;

// The specs send hundreds of requests from 127.0.0.1 within a minute, and the served app runs with production
// defaults (NODE_ENV=production): give every server they start (this one, and those the specs spawn, which inherit
// this environment) large quotas. The limiter stays on; e2e/api/ratelimit tests the small quotas.
for (const name of [
  "RATE_LIMIT_ANONYMOUS",
  "RATE_LIMIT_KEY",
  "RATE_LIMIT_BEARER",
  "RATE_LIMIT_SIGNED",
  "RATE_LIMIT_AUTH_FAILURES",
  "RATE_LIMIT_CREDENTIAL_FAILURES",
]) {
  process.env[name] ??= "1000000";
}

const PORT = process.env.E2E_PORT;
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // A hang guard, not a speed check: a browser story that takes 15 s alone takes twice that beside the other worker
  // on a 2-core CI machine, past Playwright's default 30 s. Longer stories set their own.
  timeout: 90_000,
  // An assertion waits for the page up to 15 s, not Playwright's 5: a server action answered by the served app,
  // PGlite inside it, beside two browser workers on 2 cores, can take longer than 5 s on a loaded CI machine.
  // A page that never gets there still fails, only later.
  expect: { timeout: 15_000 },
  // One worker per core on these machines; the web server shares them.
  workers: 2,
  reporter: [["list"], ["json", { outputFile: PLAYWRIGHT_JSON_REPORT }]],
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
  },
  projects: [
    {
      // The built service over real HTTP without a browser: routing, header limits, the MCP SDK client.
      name: "http",
      testDir: "./e2e/http",
    },
    {
      name: "ui",
      testDir: "./e2e/ui",
      use: {
        browserName: "chromium",
        launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
      },
    },
  ],
  webServer: {
    command: `node --import tsx scripts/serve.ts${process.env.E2E_REBUILD === "1" ? " --build" : ""}`,
    url: BASE_URL,
    env: {
      PORT,
      PGLITE_DIR: process.env.E2E_PGLITE_DIR,
      SUI_SANDBOX_PORT: process.env.E2E_SUI_SANDBOX_PORT,
      BASE_URL,
      // the specs' agent profiles and receivers are on loopback; the production build refuses them unless allowed
      OUTBOUND_ALLOW_PRIVATE: "1",
    },
    reuseExistingServer: false,
    // A fresh clone builds first (≈ 30–60 s here), then migrates and seeds.
    timeout: 300_000,
    stdout: "pipe",
    stderr: "pipe",
    // SIGTERM lets the server close PGlite cleanly before Playwright removes the data dir.
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
