import path from "node:path";
import { fileURLToPath } from "node:url";

// Paths the test scripts share. The repo root comes from this file's location, so the scripts behave the same
// whether npm or a developer's shell (from any folder) starts them.

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Playwright's JSON report; test-all reads the browser-test counts from it (git-ignored folder). */
export const PLAYWRIGHT_JSON_REPORT = path.join(REPO_ROOT, "playwright-report", "results.json");
