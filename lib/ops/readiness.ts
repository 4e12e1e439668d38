import "server-only";

import { readdir } from "node:fs/promises";
import path from "node:path";

import { checkMeilisearchHealth, meiliConfigFromEnv } from "@/lib/catalog/search/meilisearch";
import { getDb } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { logger } from "@/lib/core/log";

// What a load balancer or an orchestrator asks before sending traffic (`/readyz`): can this instance serve? The
// database answers, every committed migration is applied (an instance started before `npm run db:migrate` would
// fail on the first write), and the search engine answers when one is configured. `/healthz` asks only whether the
// process is up (liveness: restart me if not). Neither goes through the envelope, and both say no-store.

export type Check = { ok: boolean; ms: number; detail?: string };
export type Readiness = {
  ready: boolean;
  checks: { database: Check; migrations: Check & { pending?: string[] }; search?: Check };
};

/** Each dependency gets this long; readiness is a quick question. */
const CHECK_TIMEOUT_MS = 2_000;

/** Migrations missing: the one failure whose own message is safe and useful to show. */
class NotApplied extends Error {}

const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

/**
 * Runs one check within the timeout. The answer names the failure in our words (`failure`); the cause — which
 * may carry host names or driver text — goes to the server log only.
 */
const timed = async (name: string, failure: string, run: () => Promise<unknown>): Promise<Check> => {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    await Promise.race([
      run(),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        ).unref(),
      ),
    ]);
    return { ok: true, ms: ms() };
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    logger().error(`readiness: ${name} failed: ${cause}`);
    return { ok: false, ms: ms(), detail: error instanceof NotApplied ? error.message : failure };
  }
};

/** Committed migration names (the folders Prisma writes), oldest first. */
const committedMigrations = async (): Promise<string[]> =>
  (await readdir(MIGRATIONS_DIR, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

export const checkReadiness = async (): Promise<Readiness> => {
  const database = await timed("database", "the database does not answer", async () => {
    const db = await getDb();
    await db.$queryRawUnsafe("SELECT 1");
  });
  let pending: string[] = [];
  const migrations: Readiness["checks"]["migrations"] = database.ok
    ? await timed("migrations", "the migration table cannot be read", async () => {
        const db = await getDb();
        const applied = await db.$queryRawUnsafe<{ migration_name: string }[]>(
          `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        );
        const done = new Set(applied.map((row) => row.migration_name));
        pending = (await committedMigrations()).filter((name) => !done.has(name));
        if (pending.length > 0) {
          throw new NotApplied(`${pending.length} migration(s) not applied: run npm run db:migrate`);
        }
      })
    : { ok: false, ms: 0, detail: "skipped: the database does not answer" };
  if (pending.length > 0) migrations.pending = pending;
  const search = getEnv().MEILISEARCH_URL
    ? await timed("search", "the search engine does not answer", () =>
        checkMeilisearchHealth(meiliConfigFromEnv(), CHECK_TIMEOUT_MS),
      )
    : undefined;
  return {
    ready: database.ok && migrations.ok && (search?.ok ?? true),
    checks: { database, migrations, ...(search ? { search } : {}) },
  };
};
