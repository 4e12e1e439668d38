// The offline migration path (DECISIONS.md C) on a fresh in-memory PGlite, and on PostgreSQL when DATABASE_URL
// is set (in a database of its own, created and dropped here). Run: npx tsx --test scripts/db/migrate-engine.test.ts
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import { PGlite } from "@electric-sql/pglite";
import { fuzzystrmatch } from "@electric-sql/pglite/contrib/fuzzystrmatch";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";

import {
  computePendingSql,
  createMigration,
  DestructiveMigrationError,
  findDrops,
  migrationTimestamp,
  toMigrationSuffix,
} from "./create-migration";
import {
  applyMigrations,
  DEFAULT_MIGRATIONS_DIR,
  MigrationEngineError,
  readMigrationsList,
  type MigrationAdapterFactory,
} from "./migrate-engine";

type Row = Record<string, unknown>;

/** A database under test: the adapter factory the engine uses, and a side channel to inspect the result. */
type Target = {
  factory: MigrationAdapterFactory;
  query: (sql: string) => Promise<Row[]>;
  close: () => Promise<void>;
};

const openPglite = async (): Promise<Target> => {
  const client = await PGlite.create({ dataDir: "memory://", extensions: { pg_trgm, fuzzystrmatch } });
  return {
    factory: new PrismaPGlite(client),
    query: async (sql) => (await client.query<Row>(sql)).rows,
    close: () => client.close(),
  };
};

// A database of its own on the configured server, so parallel test runs never share one.
const openPostgres = async (url: string): Promise<Target> => {
  const database = `migrate_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const target = new URL(url);
  target.pathname = `/${database}`;
  const inspector = new pg.Client({ connectionString: target.href });
  await inspector.connect();
  return {
    factory: new PrismaPg({ connectionString: target.href }),
    query: async (sql) => (await inspector.query<Row>(sql)).rows,
    close: async () => {
      await inspector.end();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    },
  };
};

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await run();
  return { value, ms: Math.round(performance.now() - started) };
};

// Extra migrations on top of the committed ones, in a temporary copy of prisma/migrations.
const withExtraMigrations = async (dir: string, extra: Record<string, string>): Promise<string> => {
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    await mkdir(path.join(dir, name), { recursive: true });
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
};

// @prisma/adapter-pg splits scripts on every ";": a function body and a string literal with semicolons prove
// the script reaches the server whole.
const PLPGSQL_MIGRATION = `CREATE FUNCTION "migrate_probe"(x TEXT) RETURNS TEXT AS $$
BEGIN
  RETURN x || '; probed';
END;
$$ LANGUAGE plpgsql;
`;

// The first statement succeeds, the second fails: the migration must leave nothing behind and not count as applied.
const BROKEN_MIGRATION = `ALTER TABLE "stores" ADD COLUMN "broken_probe" INTEGER;
SELECT * FROM "no_such_table";
`;

const backends: { label: string; open: () => Promise<Target> }[] = [{ label: "PGlite", open: openPglite }];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) backends.push({ label: "PostgreSQL", open: () => openPostgres(databaseUrl) });

for (const backend of backends) {
  describe(`applyMigrations on a fresh ${backend.label} database`, () => {
    let target: Target;
    let scratch: string;
    before(async () => {
      target = await backend.open();
      scratch = await mkdtemp(path.join(os.tmpdir(), "migrate-engine-test-"));
    });
    after(async () => {
      await target.close();
      await rm(scratch, { recursive: true, force: true });
    });

    test("applies every committed migration in folder order, then none on a rerun", async (t) => {
      const committed = (await readMigrationsList()).migrationDirectories;
      assert.ok(committed.length > 0, "prisma/migrations holds at least the init migration");
      const names = committed.map((m) => m.path);

      const first = await timed(() => applyMigrations(target.factory));
      assert.deepEqual(first.value.applied, names);
      const second = await timed(() => applyMigrations(target.factory));
      assert.deepEqual(second.value.applied, []);
      t.diagnostic(`${backend.label}: first run ${first.ms} ms, rerun ${second.ms} ms`);

      const rows = await target.query(
        `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count
         FROM _prisma_migrations ORDER BY migration_name`,
      );
      assert.deepEqual(
        rows.map((r) => r.migration_name),
        names,
      );
      for (const [i, row] of rows.entries()) {
        const file = committed[i]?.migrationFile.content;
        assert.ok(file?.tag === "ok");
        assert.ok(row.finished_at instanceof Date, `${String(row.migration_name)} is finished`);
        assert.equal(row.rolled_back_at, null);
        assert.equal(Number(row.applied_steps_count), 1);
        // Prisma's checksum is the SHA-256 of the file bytes: the Rust engine will accept this history.
        assert.equal(row.checksum, sha256(file.value));
      }

      const tables = await target.query(
        `SELECT table_name FROM information_schema.tables
         WHERE table_schema = 'public' AND table_name IN ('stores', 'products', 'variants', 'orders')
         ORDER BY table_name`,
      );
      assert.deepEqual(
        tables.map((r) => r.table_name),
        ["orders", "products", "stores", "variants"],
      );
    });

    test("sends a migration to the database whole (semicolons inside a function body)", async () => {
      const dir = await withExtraMigrations(path.join(scratch, "plpgsql"), {
        "99990101000000_plpgsql_probe": PLPGSQL_MIGRATION,
      });
      const { applied } = await applyMigrations(target.factory, { migrationsDir: dir });
      assert.deepEqual(applied, ["99990101000000_plpgsql_probe"]);
      const [row] = await target.query(`SELECT "migrate_probe"('a') AS out`);
      assert.equal(row?.out, "a; probed");
    });

    test("a failing migration rolls back, is reported by name, and blocks later runs (P3009)", async () => {
      const dir = await withExtraMigrations(path.join(scratch, "broken"), {
        "99990101000000_plpgsql_probe": PLPGSQL_MIGRATION,
        "99990102000000_broken": BROKEN_MIGRATION,
      });
      await assert.rejects(applyMigrations(target.factory, { migrationsDir: dir }), (error: unknown) => {
        assert.ok(error instanceof MigrationEngineError);
        assert.match(error.message, /Migration 99990102000000_broken failed/);
        assert.match(error.message, /no_such_table/);
        return true;
      });
      const columns = await target.query(
        `SELECT column_name FROM information_schema.columns
         WHERE table_name = 'stores' AND column_name = 'broken_probe'`,
      );
      assert.deepEqual(columns, [], "the statement before the failure was rolled back");
      const [record] = await target.query(
        `SELECT finished_at FROM _prisma_migrations WHERE migration_name = '99990102000000_broken'`,
      );
      assert.equal(record?.finished_at, null, "recorded as failed, not applied");
      await assert.rejects(applyMigrations(target.factory, { migrationsDir: dir }), (error: unknown) => {
        assert.ok(error instanceof MigrationEngineError);
        assert.equal(error.code, "P3009");
        assert.match(error.message, /mark the migration rolled back/);
        return true;
      });
    });
  });
}

describe("migration files", () => {
  test("schema.prisma has no change that the committed migrations miss", async () => {
    const { sql } = await computePendingSql();
    assert.equal(sql, null, `run npm run db:migration:create -- <name>; pending SQL:\n${sql ?? ""}`);
  });

  test("create writes a timestamped migration, and refuses one that drops a column", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "migrate-create-test-"));
    try {
      const schemaPath = path.join(dir, "schema.prisma");
      const migrationsDir = path.join(dir, "migrations");
      const schema = (fields: string): string =>
        `datasource db {\n  provider = "postgresql"\n}\n\nmodel Thing {\n  id String @id\n${fields}\n  @@map("things")\n}\n`;

      await writeFile(schemaPath, schema(""));
      const init = await createMigration({
        name: "Init things!",
        migrationsDir,
        schemaPath,
        now: new Date("2026-01-02T03:04:05Z"),
      });
      assert.equal(init.status, "created");
      assert.ok(init.status === "created");
      assert.equal(init.name, "20260102030405_init_things");
      assert.match(init.sql, /CREATE TABLE "things"/);
      assert.match(
        await readFile(path.join(migrationsDir, "migration_lock.toml"), "utf8"),
        /provider = "postgresql"/,
      );

      await writeFile(schemaPath, schema("  note String?"));
      const added = await createMigration({
        name: "add note",
        migrationsDir,
        schemaPath,
        now: new Date("2026-01-03T00:00:00Z"),
      });
      assert.ok(added.status === "created");
      assert.match(added.sql, /ALTER TABLE "things" ADD COLUMN\s+"note" TEXT/);

      await writeFile(schemaPath, schema(""));
      await assert.rejects(
        createMigration({
          name: "drop note",
          migrationsDir,
          schemaPath,
          now: new Date("2026-01-04T00:00:00Z"),
        }),
        (error: unknown) =>
          error instanceof DestructiveMigrationError && /DROP COLUMN "note"/.test(error.message),
      );
      assert.deepEqual((await readdir(migrationsDir)).sort(), [
        "20260102030405_init_things",
        "20260103000000_add_note",
        "migration_lock.toml",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("names, timestamps and drop detection", () => {
    assert.equal(toMigrationSuffix("  Add wish-list! "), "add_wish_list");
    assert.throws(() => toMigrationSuffix("!!!"), /not a usable migration name/);
    assert.equal(migrationTimestamp(new Date("2026-11-22T00:03:56.789Z")), "20261122000356");
    assert.deepEqual(
      findDrops(
        '-- DropIndex\nDROP INDEX "a_idx";\nALTER TABLE "t" ALTER COLUMN "c" DROP DEFAULT;\nALTER TABLE "t" DROP COLUMN "c";\n',
      ),
      ['DROP INDEX "a_idx";', 'ALTER TABLE "t" DROP COLUMN "c";'],
    );
  });
});
