import { ensurePostgres, ensureRedis } from "./ensure-os-packages";
import { findTestFiles } from "./lib/find-test-files";
import { REPO_ROOT } from "./lib/paths";
import { childEnv, runNodeTests, splitArgs, type NodeTestResult } from "./lib/run-node-tests";
import { startPostgres } from "./pg-harness";

// `npm run test:integration`: the in-process API tests (e2e/api/**/*.test.ts) against both databases
// (STYLE.md §9): first PGlite, where each test process loads its own in-memory database from a snapshot of the
// migrated schema made once here (e2e/support/pglite-snapshot.ts, e2e/support/test-db.ts), then a real PostgreSQL started by scripts/pg-harness.ts, migrated once here
// before any test file starts, and stopped at the end.
// Usage: npm run test:integration [-- --db=pglite|postgres|both] [<path filter>…] [--test-name-pattern=<re>]

type DbChoice = "pglite" | "postgres" | "both";
const DB_CHOICES: readonly DbChoice[] = ["pglite", "postgres", "both"];

const parseDbChoice = (argv: string[]): DbChoice => {
  const raw = argv.find((a) => a.startsWith("--db="))?.slice("--db=".length) ?? "both";
  const choice = DB_CHOICES.find((c) => c === raw);
  if (!choice) {
    console.error(`--db must be one of ${DB_CHOICES.join(", ")} (got "${raw}")`);
    process.exit(2);
  }
  return choice;
};

/**
 * Applies the committed migrations to the harness database, once, with Prisma's PostgreSQL adapter for `url`. Not
 * through openAdapter(): it reads the environment through getEnv(), which caches its first read, and the PGlite
 * half before this one may have read it already (building the snapshot opens a PGlite), without DATABASE_URL.
 */
const migrateOnce = async (url: string): Promise<void> => {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const { applyMigrations } = await import("./db/migrate-engine");
  const started = performance.now();
  const { applied } = await applyMigrations(new PrismaPg({ connectionString: url, max: 2 }), {
    log: (line) => console.log(`  ${line}`),
  });
  const ms = Math.round(performance.now() - started);
  console.log(`Migrated PostgreSQL ${url}: ${applied.length} migration(s) applied in ${ms} ms.`);
};

const argv = process.argv.slice(2);
const db = parseDbChoice(argv);
const split = splitArgs(argv, ["--db"]);
const { filters } = split;
// Every test process gets the Stripe and Sui sandboxes (real HTTP servers of the providers' APIs) and their URLs, as
// npm start does.
const nodeArgs = [
  "--import",
  "./e2e/support/stripe-sandbox-env.ts",
  "--import",
  "./e2e/support/sui-sandbox-env.ts",
  ...split.nodeArgs,
];
const files = findTestFiles({ cwd: REPO_ROOT, roots: ["e2e/api"], suffix: ".test.ts", filters });

if (files.length === 0) {
  console.log(
    filters.length > 0
      ? `No integration test file matches ${filters.join(", ")}.`
      : "No integration test files yet.",
  );
  process.exit(filters.length > 0 ? 1 : 0);
}

// the rate-limit tests start a real redis-server (e2e/helpers/redis-server.ts)
if (files.some((file) => file.includes("ratelimit"))) {
  try {
    ensureRedis();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

const results: { label: string; result: NodeTestResult }[] = [];

/**
 * `*.pg.test.ts`: what only a real PostgreSQL can show (several connections committing in a chosen order; PGlite
 * is one connection), run on the PostgreSQL half only, rather than skipped on PGlite.
 */
const pgliteFiles = files.filter((file) => !file.endsWith(".pg.test.ts"));

if ((db === "pglite" || db === "both") && pgliteFiles.length > 0) {
  console.log(
    `\n=== Integration tests on PGlite (in-memory, one database per test file): ${pgliteFiles.length} file(s) ===\n`,
  );
  const { ensurePgliteSnapshot } = await import("../e2e/support/pglite-snapshot");
  const started = performance.now();
  const snapshot = await ensurePgliteSnapshot();
  console.log(`Pre-migrated PGlite snapshot: ${snapshot} (${Math.round(performance.now() - started)} ms)\n`);
  const result = await runNodeTests({
    cwd: REPO_ROOT,
    files: pgliteFiles,
    nodeArgs,
    env: childEnv({ set: { NODE_ENV: "test", PGLITE_DIR: "memory://" }, unset: ["DATABASE_URL"] }),
  });
  results.push({ label: "PGlite", result });
}

if (db === "postgres" || db === "both") {
  console.log(`\n=== Integration tests on PostgreSQL (scripts/pg-harness.ts): ${files.length} file(s) ===\n`);
  try {
    ensurePostgres();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const started = performance.now();
  const server = await startPostgres().catch((error: unknown) => {
    // Missing binaries or a failed initdb: the harness's message says what to install; no stack trace needed.
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
  console.log(`Started ${server.url} in ${Math.round(performance.now() - started)} ms.`);
  try {
    await migrateOnce(server.url);
    const result = await runNodeTests({
      cwd: REPO_ROOT,
      files,
      nodeArgs,
      env: childEnv({ set: { NODE_ENV: "test", DATABASE_URL: server.url }, unset: ["PGLITE_DIR"] }),
    });
    results.push({ label: "PostgreSQL", result });
  } finally {
    await server.stop();
    console.log("Stopped the test PostgreSQL.");
  }
}

console.log(
  `\nIntegration: ${results
    .map(
      ({ label, result }) =>
        `${label} ${result.exitCode === 0 ? "ok" : "FAILED"} (${result.pass} passed, ${result.fail} failed)`,
    )
    .join("; ")}`,
);
process.exit(results.some(({ result }) => result.exitCode !== 0) ? 1 : 0);
