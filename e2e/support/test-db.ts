import { openAsBlob } from "node:fs";

import { closeDb, openDbWith } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { flushKeyCalls } from "@/lib/ops/key-call-log";
import { applyMigrations } from "@/scripts/db/migrate-engine";

import { ensurePgliteSnapshot } from "./pglite-snapshot";

// Database setup for integration test files (e2e/api/**/*.test.ts), which call route handlers in-process
// through the app's own Prisma singleton. Usage in a test file:
//
//   before(prepareTestDatabase);
//   after(closeTestDatabase);
//
// PGlite (DATABASE_URL unset): every test process owns a fresh in-memory database, started from the pre-migrated
// snapshot of the committed migrations (pglite-snapshot.ts: made once per run by the runner, or here when it is
// missing). Should the singleton be open already (something used the database before this), the migrations are
// applied here instead, through the singleton's own adapter factory: a second openAdapter() would create a
// second, empty, in-memory database.
// PostgreSQL (DATABASE_URL set): scripts/test-integration.ts migrated the harness database once before any
// file started; test files running in parallel must not migrate the same database concurrently.

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

let prepared: Promise<void> | undefined;

/** Refuses anything but a loopback PostgreSQL: tests write data and must never reach a shared database. */
const assertLocalDatabaseUrl = (url: string): void => {
  const host = new URL(url).hostname;
  if (!LOOPBACK_HOSTS.has(host)) {
    throw new Error(
      `Integration tests refuse a non-local DATABASE_URL (host ${host}); use npm run test:integration.`,
    );
  }
};

const prepare = async (): Promise<void> => {
  if (process.env.DATABASE_URL) {
    assertLocalDatabaseUrl(process.env.DATABASE_URL);
    return;
  }
  process.env.PGLITE_DIR ??= "memory://";
  // getEnv() caches its first read: if something read it before PGLITE_DIR was set, the singleton would open
  // the project's on-disk data dir (shared between concurrent test processes and the developer's data).
  if (!getEnv().PGLITE_DIR.startsWith("memory://")) {
    throw new Error(
      `Integration tests need an in-memory PGlite, but PGLITE_DIR is ${getEnv().PGLITE_DIR}. ` +
        "Run them with npm run test:integration, or unset PGLITE_DIR.",
    );
  }
  // A Blob backed by the file: PGlite reads it once, without a 43 MB Buffer copied into a second Blob first
  // (that copy was about a sixth of a test file's start-up).
  const snapshot = await openAsBlob(await ensurePgliteSnapshot());
  const { client, handle } = await openDbWith({ pgliteDataDir: snapshot });
  const [{ migrated }] = await client.$queryRawUnsafe<[{ migrated: boolean }]>(
    "SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS migrated",
  );
  if (!migrated) await applyMigrations(handle.factory);
};

/** Makes the app's database ready for this test process (idempotent; see the header comment). */
export const prepareTestDatabase = (): Promise<void> => {
  prepared ??= prepare().catch((error: unknown) => {
    prepared = undefined;
    throw error;
  });
  return prepared;
};

/** Closes the app's database so the test process can exit (PGlite and pg pools hold the event loop open). */
export const closeTestDatabase = async (): Promise<void> => {
  prepared = undefined;
  // the platform keys' call log writes a moment after each answer: what is still waiting goes in before the
  // database closes (a write after it would open a new, empty in-memory one and fail there)
  await flushKeyCalls();
  await closeDb();
};
