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

/**
 * What `npm start`, `npm run serve` and `npm run admin` run first (`<this> && …`): the Node version check, plain
 * JavaScript an old node still parses, so Node 20 gets a message naming the version needed and how to get it
 * instead of an import error (scripts/check-node.mjs). The Dockerfile's image is Node 24 and runs without it.
 */
export const NODE_CHECK_COMMAND = "node scripts/check-node.mjs";

/**
 * glibc's malloc tuning the server is started with, unless the environment already sets it (`npm start` and
 * `npm run serve` as `${NAME:-value}` in their shell, the Dockerfile as an ENV an operator can override, the
 * benches through `serverEnv`). A fixed mmap threshold: a block of 128 KiB or more is mapped on its own and
 * returned to the system when freed. By default glibc raises that threshold whenever such a block is freed, after
 * which those blocks are carved from the arenas (one per thread that allocates: the main thread, V8's and libuv's
 * workers) and stay resident after they are freed: under a sustained card bench on PGlite glibc held ~220–255 MB of
 * which ~130–210 MB was free, against ~110 MB (~50–65 free) with the threshold fixed, for RSS 540–600 → 450–530 MB
 * and no CPU difference the runs could show (docs/performance.md, "Twenty-first pass").
 */
export const SERVER_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: "131072" } as const;

/** `env` with SERVER_MALLOC_ENV's values where it sets none, for spawning the server as `npm start` does. */
export const serverEnv = <E extends Record<string, string | undefined>>(
  env: E,
): E & Record<keyof typeof SERVER_MALLOC_ENV, string> =>
  ({
    ...SERVER_MALLOC_ENV,
    ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
  }) as E & Record<keyof typeof SERVER_MALLOC_ENV, string>;

/** SERVER_MALLOC_ENV as `npm start`'s script sets it: `NAME=${NAME:-value} …` (an operator's own value wins). */
export const serverMallocShellPrefix = (): string =>
  Object.entries(SERVER_MALLOC_ENV)
    .map(([name, value]) => `${name}=\${${name}:-${value}}`)
    .join(" ");
