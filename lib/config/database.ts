import { mkdirSync } from "node:fs";
import path from "node:path";

import { PGlite } from "@electric-sql/pglite";
import { fuzzystrmatch } from "@electric-sql/pglite/contrib/fuzzystrmatch";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";

import { getEnv } from "./env";
import { PreparedClient } from "./pg-prepared";
import { assertPgliteFree, holdPgliteLock } from "./pglite-lock";
import { withPreparedStatements } from "./pglite-prepared";
import { statementNamer } from "./statement-names";

// The two database backends behind one Prisma schema (DECISIONS.md A): PGlite when DATABASE_URL is unset,
// PostgreSQL through @prisma/adapter-pg when it is a postgres:// URL. Used by the app (lib/config/db.ts), the
// migration script and the seed, so every process opens the database the same way.

export type DatabaseKind = "pglite" | "postgres";

export type AdapterHandle = {
  kind: DatabaseKind;
  /** Human-readable target for logs (never includes a password). */
  describe: string;
  factory: PrismaPg | PrismaPGlite;
  /** Closes the underlying database (PGlite must be closed to release its data dir). */
  close: () => Promise<void>;
  /** PGlite only: the whole data dir as an uncompressed tarball (a pre-migrated start for test databases). */
  dumpDataDir?: () => Promise<Blob>;
};

export type OpenOptions = {
  /**
   * In-memory PGlite only: start from this data dir tarball (PGlite `loadDataDir`) instead of an empty cluster.
   * The integration tests' pre-migrated snapshot (e2e/support/pglite-snapshot.ts).
   */
  pgliteDataDir?: Blob;
};

const PGLITE_EXTENSIONS = { pg_trgm, fuzzystrmatch };

const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");

// An embedded database the server process opened before the app (scripts/serve.ts checks whether set-up has
// anything to do): the app's first openAdapter takes it instead of opening the data dir a second time. On
// globalThis because the app's bundle has its own copy of this module.
const kept = globalThis as unknown as { __acsKeptPglite?: { dataDir: string; handle: AdapterHandle } };

/**
 * Leaves an opened embedded database for the app's first openAdapter of the same data dir. Other kinds are
 * closed (a PostgreSQL pool costs nothing to open again).
 */
export const keepOpenForServer = (handle: AdapterHandle): void => {
  const env = getEnv();
  if (handle.kind !== "pglite" || env.DATABASE_URL || env.PGLITE_DIR.startsWith("memory://")) {
    void handle.close();
    return;
  }
  kept.__acsKeptPglite = { dataDir: path.resolve(env.PGLITE_DIR), handle };
};

/** Opens the configured database and returns a Prisma driver-adapter factory for it. */
export const openAdapter = async (options: OpenOptions = {}): Promise<AdapterHandle> => {
  const env = getEnv();
  const held = kept.__acsKeptPglite;
  if (held) {
    kept.__acsKeptPglite = undefined;
    if (!env.DATABASE_URL && held.dataDir === path.resolve(env.PGLITE_DIR)) return held.handle;
    await held.handle.close();
  }
  if (env.DATABASE_URL) {
    type PgOptions = NonNullable<ConstructorParameters<typeof PrismaPg>[1]>;
    // each statement prepared once per connection (statement-names.ts); pg sends an unnamed one when the
    // namer answers undefined, which the adapter's declared type does not admit
    const statementNameGenerator = env.PG_PREPARED_STATEMENTS
      ? (statementNamer(env.PG_PREPARED_STATEMENTS) as PgOptions["statementNameGenerator"])
      : undefined;
    // the named calls then run on pg-prepared.ts's lighter query object
    const factory = new PrismaPg(
      {
        connectionString: env.DATABASE_URL,
        max: 10,
        ...(statementNameGenerator ? { Client: PreparedClient } : {}),
      },
      statementNameGenerator ? { statementNameGenerator } : undefined,
    );
    return {
      kind: "postgres",
      describe: `PostgreSQL ${redact(env.DATABASE_URL)}`,
      factory,
      close: async () => {},
    };
  }
  const dir = env.PGLITE_DIR;
  const isMemory = dir.startsWith("memory://");
  const dataDir = isMemory ? dir : path.resolve(dir);
  // refused before anything is opened while a server holds the dir (pglite-lock.ts)
  if (!isMemory) assertPgliteFree(dataDir);
  if (!isMemory) mkdirSync(dataDir, { recursive: true });
  return openPglite(dataDir, isMemory ? options : {});
};

/** A PGlite at `dataDir` (a path or memory://) with the extensions the schema needs. */
export const openPglite = async (dataDir: string, options: OpenOptions = {}): Promise<AdapterHandle> => {
  const loadDataDir = options.pgliteDataDir;
  const client = await PGlite.create({
    dataDir,
    extensions: PGLITE_EXTENSIONS,
    startParams: [
      ...PGlite.defaultStartParams,
      "-c",
      `shared_buffers=${getEnv().PGLITE_SHARED_BUFFERS_MB}MB`,
    ],
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  return {
    kind: "pglite",
    describe: `PGlite ${dataDir}`,
    // each statement parsed and planned once (pglite-prepared.ts)
    factory: new PrismaPGlite(withPreparedStatements(client, getEnv().PG_PREPARED_STATEMENTS)),
    close: () => client.close(),
    dumpDataDir: () => client.dumpDataDir("none"),
  };
};

type SharedDb = { client: { $disconnect: () => Promise<void> }; handle: AdapterHandle };
const sharedDb = globalThis as unknown as { __acsDb?: Promise<SharedDb> };

/**
 * Closes the process-wide database opened by lib/config/db.ts, if any. It lives here (without "server-only") so
 * the HTTP server process can flush and release a PGlite data dir on shutdown.
 */
export const closeSharedDb = async (): Promise<void> => {
  const held = kept.__acsKeptPglite;
  kept.__acsKeptPglite = undefined;
  await held?.handle.close();
  const state = sharedDb.__acsDb;
  sharedDb.__acsDb = undefined;
  if (!state) return;
  const { client, handle } = await state;
  await client.$disconnect();
  await handle.close();
};

/**
 * The server's claim on the embedded data dir (scripts/serve.ts, after its set-up steps): other processes then
 * refuse to open it. No-op on PostgreSQL and in-memory PGlite.
 * @throws Error when another live server holds it
 */
export const claimEmbeddedDatabase = (): void => {
  const env = getEnv();
  if (env.DATABASE_URL || env.PGLITE_DIR.startsWith("memory://")) return;
  holdPgliteLock(env.PGLITE_DIR);
};
