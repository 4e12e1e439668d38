import path from "node:path";
import { fileURLToPath } from "node:url";

// Paths the test scripts share. The repo root comes from this file's location, so the scripts behave the same
// whether npm or a developer's shell (from any folder) starts them.

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Playwright's JSON report; test-all reads the browser-test counts from it (git-ignored folder). */
export const PLAYWRIGHT_JSON_REPORT = path.join(REPO_ROOT, "playwright-report", "results.json");

/**
 * How `npm start`, `npm run serve` and the Dockerfile run the server (scripts/deploy-files.test.ts holds them to
 * it; the benches start it so). Each semi-space of V8's young generation is capped at 8 MB: on a machine with
 * much memory V8 lets the young generation grow to 128 MB, which under load held the server's RSS about 110–160 MB
 * higher (docs/performance.md, "Seventh pass"). Options on node's command line win over NODE_OPTIONS, so an
 * operator who wants another trade runs `node <flags> --import tsx scripts/serve.ts` directly.
 */
export const SERVER_NODE_ARGS = ["--max-semi-space-size=8", "--import", "tsx", "scripts/serve.ts"] as const;
