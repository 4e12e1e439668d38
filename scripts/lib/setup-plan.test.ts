import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import { ensurePgliteSnapshot } from "@/e2e/support/pglite-snapshot";
import { openPglite, type AdapterHandle } from "@/lib/config/database";
import { generateApiKey } from "@/lib/credentials/api-key-format";
import { applyMigrations, DEFAULT_MIGRATIONS_DIR } from "@/scripts/db/migrate-engine";

import { committedMigrations, setUpIfNeeded, type SetupInputs } from "./setup-plan";

// `npm start` runs its set-up step (the migration engine, the seed, the demo key; scripts/setup.ts in its own
// process) only when the database lacks something. Here on real databases: a migrated PGlite from the integration
// tests' snapshot, and the engine itself applying a migration the check found missing.

const temp = mkdtempSync(path.join(tmpdir(), "acs-setup-plan-"));
after(() => rmSync(temp, { recursive: true, force: true }));

let snapshot: Blob;
before(async () => {
  snapshot = new Blob([new Uint8Array(readFileSync(await ensurePgliteSnapshot()))]);
});

const committed = committedMigrations(DEFAULT_MIGRATIONS_DIR);
const development: SetupInputs = { committed, production: false, seedDemo: true, demoKey: null };

/** One start's set-up decision on `handle`: whether the set-up step ran (and why), and whether the db was kept. */
const start = async (
  handle: AdapterHandle,
  inputs: SetupInputs,
  setUp: () => Promise<void> = async () => {},
) => {
  const runs: string[][] = [];
  const lines: string[] = [];
  let kept = false;
  await setUpIfNeeded({
    // the test's in-memory database outlives each start (as a data dir does between processes)
    open: async () => ({ ...handle, close: async () => {} }),
    inputs,
    runSetup: async (missing) => {
      runs.push(missing);
      await setUp();
    },
    keep: () => (kept = true),
    log: (line) => lines.push(line),
  });
  return { ran: runs.length > 0, why: runs.flat().join("; "), kept, lines };
};

const migrated = () => openPglite("memory://", { pgliteDataDir: snapshot });
const sql = (handle: AdapterHandle, text: string) =>
  handle.factory.connect().then((adapter) => adapter.executeScript(text));

/** What the set-up step leaves behind on a development start: a test-mode store and a demo key. */
const seedAndMintKey = async (handle: AdapterHandle): Promise<string> => {
  const { key, prefix, secretHash } = generateApiKey();
  await sql(
    handle,
    `INSERT INTO stores (id, slug, name, updated_at) VALUES ('st_probe', 'probe', 'Probe', now());
     INSERT INTO platform_api_keys (id, name, prefix, secret_hash) VALUES ('key_probe', 'demo', '${prefix}', '${secretHash}');`,
  );
  return key;
};

describe("set-up step at start-up", () => {
  test("a new database runs it; the next start on what it left finds nothing to do and keeps the db open", async () => {
    const handle = await migrated();
    try {
      let demoKey: string | null = null;
      const first = await start(handle, development, async () => {
        demoKey = await seedAndMintKey(handle);
      });
      assert.equal(first.ran, true);
      assert.match(first.why, /empty database to seed/);
      assert.equal(first.kept, false, "closed for the set-up step's own process");

      const second = await start(handle, { ...development, demoKey });
      assert.equal(second.ran, false, second.why);
      assert.equal(second.kept, true);
      assert.deepEqual(second.lines, ["Set-up: nothing to do (every migration applied, data present)"]);
    } finally {
      await handle.close();
    }
  });

  test("a database without the migration table runs it", async () => {
    const handle = await migrated();
    try {
      await sql(handle, "DROP TABLE _prisma_migrations");
      const run = await start(handle, development);
      assert.equal(run.ran, true);
      assert.match(run.why, /no migration applied yet/);
    } finally {
      await handle.close();
    }
  });

  test("a committed migration not applied runs it, and the engine applies exactly that one", async () => {
    const handle = await migrated();
    try {
      const demoKey = await seedAndMintKey(handle);
      const dir = path.join(temp, "migrations");
      cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
      const added = "29990101000000_startup_probe";
      mkdirSync(path.join(dir, added));
      writeFileSync(path.join(dir, added, "migration.sql"), "CREATE TABLE startup_probe (id integer);\n");
      const inputs = { ...development, committed: committedMigrations(dir), demoKey };

      let applied: string[] = [];
      const first = await start(handle, inputs, async () => {
        applied = (await applyMigrations(handle.factory, { migrationsDir: dir })).applied;
      });
      assert.equal(first.ran, true);
      assert.match(first.why, new RegExp(`1 migration\\(s\\) to apply \\(${added}\\)`));
      assert.deepEqual(applied, [added]);
      assert.equal((await start(handle, inputs)).ran, false);
    } finally {
      await handle.close();
    }
  });

  test("a migration that failed earlier runs it (the engine reports it)", async () => {
    const handle = await migrated();
    try {
      const demoKey = await seedAndMintKey(handle);
      await sql(
        handle,
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count)
         VALUES ('failed', 'x', '${committed.at(-1)}', now(), 0)`,
      );
      const run = await start(handle, { ...development, demoKey });
      assert.equal(run.ran, true);
      assert.match(run.why, new RegExp(`migration ${committed.at(-1)} failed earlier`));
    } finally {
      await handle.close();
    }
  });

  test("the demo key: a missing or revoked one runs it outside production; live stores and production need none", async () => {
    const handle = await migrated();
    try {
      const demoKey = await seedAndMintKey(handle);
      assert.match((await start(handle, development)).why, /a working demo platform key/);
      assert.match(
        (await start(handle, { ...development, demoKey: `${demoKey}x` })).why,
        /demo platform key/,
      );
      assert.equal((await start(handle, { ...development, demoKey })).ran, false);
      await sql(handle, `UPDATE platform_api_keys SET revoked_at = now()`);
      assert.match((await start(handle, { ...development, demoKey })).why, /a working demo platform key/);
      assert.equal((await start(handle, { ...development, production: true, seedDemo: false })).ran, false);
      await sql(handle, `UPDATE stores SET mode = 'live'`);
      assert.equal((await start(handle, development)).ran, false);
    } finally {
      await handle.close();
    }
  });

  test("an empty production database: nothing seeded, said as the set-up step says it, without running it", async () => {
    const handle = await migrated();
    try {
      const run = await start(handle, { ...development, production: true, seedDemo: false });
      assert.equal(run.ran, false);
      assert.deepEqual(run.lines.slice(1), [
        "Empty database: nothing seeded (production; SEED_DEMO=1 seeds the demo stores)",
      ]);
    } finally {
      await handle.close();
    }
  });
});
