import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { openPglite } from "@/lib/config/database";
import { applyMigrations, DEFAULT_MIGRATIONS_DIR } from "@/scripts/db/migrate-engine";

// A pre-migrated PGlite data dir for the integration tests: every test file used to migrate its own in-memory
// database (22 migrations, ~2.3 s each time); now the runner (scripts/test-integration.ts) migrates one PGlite
// once, dumps its data dir, and each test file starts from that tarball (e2e/support/test-db.ts). The file is
// named after a hash of the committed migrations and the PGlite version, so a changed, added or removed
// migration (or another PGlite) makes a new one; an outdated snapshot is never loaded.

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

const filesUnder = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });

/** The snapshot's file for the migrations as they are now. */
export const pgliteSnapshotFile = (): string => {
  const hash = createHash("sha256");
  const pglite = JSON.parse(
    readFileSync(path.join(REPO_ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8"),
  ) as { version: string };
  hash.update(`pglite ${pglite.version}\n`);
  for (const file of filesUnder(DEFAULT_MIGRATIONS_DIR)) {
    hash.update(`${path.relative(DEFAULT_MIGRATIONS_DIR, file)}\n`);
    hash.update(readFileSync(file));
  }
  return path.join(tmpdir(), `acs-pglite-migrated-${hash.digest("hex").slice(0, 16)}.tar`);
};

/** Makes the snapshot unless it exists; returns its file. Concurrent makers are harmless (atomic rename). */
export const ensurePgliteSnapshot = async (): Promise<string> => {
  const file = pgliteSnapshotFile();
  if (existsSync(file)) return file;
  const handle = await openPglite("memory://");
  try {
    await applyMigrations(handle.factory);
    const tarball = await handle.dumpDataDir!();
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, new Uint8Array(await tarball.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    await handle.close();
  }
  return file;
};
