import { existsSync, readdirSync, readFileSync } from "node:fs";

import type { AdapterHandle } from "@/lib/config/database";
import { hashApiKey, isSameHash, parseApiKeyPrefix } from "@/lib/credentials/api-key-format";

// What `npm start`'s set-up step (scripts/setup.ts) would find to do, decided with a few SELECTs in the serving
// process. The set-up step runs in its own tsx process and starts Prisma's wasm schema engine just to learn that
// every migration is applied (seconds on every start), so the server runs it only when this says something is
// missing: a committed migration not applied (or a failed one, which the engine reports), an empty database the
// demo should be seeded into, or a test-mode deployment without a working demo platform key. Anything this cannot
// read (no migration table yet, a query failing) counts as missing: the set-up step then does and reports it as
// before.

/** One SELECT with string parameters, rows as objects keyed by column name. */
export type SqlProbe = (sql: string, args?: string[]) => Promise<Record<string, unknown>[]>;

export type SetupInputs = {
  /** Committed migration folder names (prisma/migrations). */
  committed: string[];
  production: boolean;
  /** Whether an empty database gets the demo data (SEED_DEMO, else outside production). */
  seedDemo: boolean;
  /** The demo platform key from its file, or null. */
  demoKey: string | null;
};

export type SetupPlan = {
  /** What the set-up step has to do; empty when there is nothing (then it is not started). */
  missing: string[];
  /** What the set-up step would have said about a state it leaves alone (an empty production database). */
  notes: string[];
};

/** The committed migrations' folder names, oldest first (the order Prisma applies them in). */
export const committedMigrations = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    : [];

/** The key in the demo key file (scripts/setup.ts writes it), or null when absent or unreadable. */
export const readDemoKey = (file: string): string | null => {
  if (!existsSync(file)) return null;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { key?: string }).key ?? null;
  } catch {
    return null;
  }
};

const pendingMigrations = async (query: SqlProbe, committed: string[]): Promise<string[]> => {
  const [table] = await query(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`);
  if (!table?.present) return ["no migration applied yet"];
  const rows = await query(
    `SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
       FROM _prisma_migrations`,
  );
  const applied = new Set(
    rows.filter((r) => r.finished && !r.rolled_back).map((r) => String(r.migration_name)),
  );
  const missing: string[] = [];
  // a failed migration blocks every later one: the engine names it and says how to repair it (P3009)
  for (const row of rows.filter((r) => !r.finished && !r.rolled_back))
    missing.push(`migration ${String(row.migration_name)} failed earlier`);
  const pending = committed.filter((name) => !applied.has(name));
  if (pending.length > 0) missing.push(`${pending.length} migration(s) to apply (${pending.join(", ")})`);
  // applied here but not committed (code older than the database): left to the engine to judge, as before
  const foreign = [...applied].filter((name) => !committed.includes(name));
  if (foreign.length > 0) missing.push(`migration(s) applied but not committed (${foreign.join(", ")})`);
  return missing;
};

const demoKeyWorks = async (query: SqlProbe, key: string | null): Promise<boolean> => {
  const prefix = key && parseApiKeyPrefix(key);
  if (!key || !prefix) return false;
  // the checks resolvePrincipal makes of a platform key: its row by prefix, the same hash, not revoked
  const [row] = await query(
    `SELECT secret_hash, revoked_at IS NOT NULL AS revoked FROM platform_api_keys WHERE prefix = $1`,
    [prefix],
  );
  return !!row && !row.revoked && isSameHash(String(row.secret_hash), hashApiKey(key));
};

/** What the set-up step has to do on the database `query` reads; never writes. */
export const planSetup = async (query: SqlProbe, inputs: SetupInputs): Promise<SetupPlan> => {
  const missing = await pendingMigrations(query, inputs.committed);
  if (missing.length > 0) return { missing, notes: [] };
  const [counts] = await query(
    `SELECT count(*)::int AS stores, count(*) FILTER (WHERE mode = 'live')::int AS live FROM stores`,
  );
  const stores = Number(counts?.stores ?? 0);
  if (stores === 0) {
    if (inputs.seedDemo) return { missing: ["an empty database to seed with the demo stores"], notes: [] };
    const why = inputs.production ? "production" : "SEED_DEMO=0";
    return {
      missing: [],
      notes: [`Empty database: nothing seeded (${why}; SEED_DEMO=1 seeds the demo stores)`],
    };
  }
  // setup.ts mints a demo key only outside production and only while every store is in test mode
  const wantsKey = !inputs.production && Number(counts?.live ?? 0) === 0;
  if (wantsKey && !(await demoKeyWorks(query, inputs.demoKey)))
    return { missing: ["a working demo platform key"], notes: [] };
  return { missing: [], notes: [] };
};

/** A probe over an opened database's driver adapter, and how to let it go. */
export const probeDatabase = async (
  handle: AdapterHandle,
): Promise<{ query: SqlProbe; release: () => Promise<void> }> => {
  const adapter = await handle.factory.connect();
  const query: SqlProbe = async (sql, args = []) => {
    const result = await adapter.queryRaw({
      sql,
      args,
      argTypes: args.map(() => ({ scalarType: "string" as const, arity: "scalar" as const })),
    });
    return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
  };
  return { query, release: () => adapter.dispose() };
};

export type SetUpSteps = {
  /** Opens the database to check (serve.ts: the configured one, as the app opens it). */
  open: () => Promise<AdapterHandle>;
  inputs: SetupInputs;
  /** Runs the set-up step, after the checked database was closed (serve.ts: scripts/setup.ts as a child). */
  runSetup: (missing: string[]) => void | Promise<void>;
  /** Takes the checked database, still open, when nothing was missing (serve.ts hands it to the app). */
  keep: (handle: AdapterHandle) => void;
  log: (line: string) => void;
};

/** Checks the database and runs the set-up step only when it has something to do; returns what was found. */
export const setUpIfNeeded = async (steps: SetUpSteps): Promise<SetupPlan> => {
  let handle: AdapterHandle | undefined;
  let plan: SetupPlan;
  try {
    handle = await steps.open();
    const probe = await probeDatabase(handle);
    try {
      plan = await planSetup(probe.query, steps.inputs);
    } finally {
      await probe.release();
    }
  } catch (error) {
    // the set-up step meets the same problem and reports it as it always has (a held data dir, no database)
    const why = error instanceof Error ? error.message : String(error);
    plan = { missing: [`the database could not be checked: ${why}`], notes: [] };
  }
  if (plan.missing.length === 0) {
    steps.log("Set-up: nothing to do (every migration applied, data present)");
    for (const note of plan.notes) steps.log(note);
    if (handle) steps.keep(handle);
    return plan;
  }
  // an embedded data dir is opened by one process at a time: the set-up step's
  await handle?.close();
  await steps.runSetup(plan.missing);
  return plan;
};
