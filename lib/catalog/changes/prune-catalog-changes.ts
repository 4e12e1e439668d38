import "server-only";

import { getDb } from "@/lib/config/db";

import { CHANGES_PRUNE_GRACE_MS, CHANGES_RETENTION_MS } from "./schemas";

// The periodic job that keeps the change feed to its window (instrumentation.ts, hourly): rows older than the
// retention window plus a day's grace are deleted, in batches so that one sweep after a large import neither holds
// long locks nor builds one huge transaction. The grace covers a cursor dated just inside the window whose next
// changes were recorded a little before it (by a transaction still running then).

export const CHANGES_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 10_000;

/** Deletes the changes past the window at `now`; returns how many. */
export const pruneCatalogChanges = async (now: Date = new Date()): Promise<number> => {
  const db = await getDb();
  const cutoff = new Date(now.getTime() - CHANGES_RETENTION_MS - CHANGES_PRUNE_GRACE_MS).toISOString();
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRawUnsafe(
      `DELETE FROM "catalog_changes" WHERE "id" IN (
         SELECT "id" FROM "catalog_changes" WHERE "created_at" < $1::timestamptz LIMIT ${BATCH})`,
      cutoff,
    );
    total += deleted;
    if (deleted < BATCH) return total;
  }
};
