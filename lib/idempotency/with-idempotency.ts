import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { execute, sql } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";

import { scopeHash } from "./request-hash";

// The idempotency wrapper every state-changing operation goes through (DECISIONS.md B8, STYLE.md §7):
// same key + same fingerprint → the stored response byte for byte (failures included); different fingerprint
// → 409 idempotency_key_reused; still running → 409 idempotency_in_flight + Retry-After. Records live ≥ 48 h
// and expired ones are purged. If the key store fails we fail closed with 503 (UCP §14).

export const IDEMPOTENCY_RETENTION_MS = 48 * 60 * 60 * 1000;
/** An in-progress record older than this is treated as abandoned (its process died) and may be taken over. */
export const IDEMPOTENCY_LOCK_MS = 30_000;
const PURGE_INTERVAL_MS = 60_000;

export type StoredOutcome = { status: number; bodyText: string };
export type IdempotencyScope = {
  principalId: string;
  storeSlug: string;
  operation: string;
  key: string;
  requestHash: string;
  now: Date;
};

let lastPurgeAt = 0;

/** Deletes expired records; returns how many. Also called by the admin CLI. */
export const purgeExpiredIdempotencyRecords = async (now = new Date()): Promise<number> => {
  const db = await getDb();
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
};

const storeUnavailable = (cause: unknown) =>
  new AppError("service_unavailable", "The idempotency store is unavailable; retry shortly", {
    cause,
    headers: { "Retry-After": "1" },
    details: { retry_after: 1 },
  });

/** Runs `run` at most once per scope; see the header comment for the rules. */
export const withIdempotency = async (
  scope: IdempotencyScope,
  run: () => Promise<StoredOutcome>,
): Promise<StoredOutcome & { replayed: boolean }> => {
  const db = await getDb();
  const { now } = scope;
  const hash = scopeHash(scope);

  if (now.getTime() - lastPurgeAt > PURGE_INTERVAL_MS) {
    lastPurgeAt = now.getTime();
    await purgeExpiredIdempotencyRecords(now).catch(() => 0); // best effort: expiry is also checked per read
  }

  const lockedUntil = () => new Date(now.getTime() + IDEMPOTENCY_LOCK_MS);
  let recordId: string | null = null;

  try {
    for (let attempt = 0; attempt < 3 && recordId === null; attempt++) {
      // a fresh key is the common case: claim it in one statement (ON CONFLICT DO NOTHING), read only when taken
      const id = newId("idempotency");
      // Written in SQL: this is Prisma's createMany with skipDuplicates, whose plan Prisma compiles again on every
      // call (docs/decisions.md "Plans Prisma can reuse"); sent without Prisma's client, as every mutating call
      // sends it (lib/config/sql.ts); the adapters write the Dates as UTC, as Prisma does.
      const count = await execute(sql`
        INSERT INTO idempotency_records
          (id, scope_hash, principal_id, store_slug, operation, "key", request_hash, created_at, locked_until, expires_at)
        VALUES (${id}, ${hash}, ${scope.principalId}, ${scope.storeSlug}, ${scope.operation}, ${scope.key},
          ${scope.requestHash}, ${now}, ${lockedUntil()}, ${new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS)})
        ON CONFLICT DO NOTHING`);
      if (count === 1) {
        recordId = id;
        continue;
      }
      const existing = await db.idempotencyRecord.findUnique({ where: { scopeHash: hash } });
      // gone between the two statements (expired and purged, or released by a failed run): claim it again
      if (!existing) continue;
      if (existing.expiresAt <= now) {
        await db.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
        continue;
      }
      if (existing.requestHash !== scope.requestHash) {
        throw new AppError(
          "idempotency_key_reused",
          `Idempotency key "${scope.key}" was already used for ${scope.operation} with different arguments; use a fresh key per logical attempt`,
        );
      }
      if (existing.state === "done" && existing.responseStatus !== null && existing.responseBody !== null) {
        return { status: existing.responseStatus, bodyText: existing.responseBody, replayed: true };
      }
      if (existing.lockedUntil > now) {
        const retryAfter = Math.max(1, Math.ceil((existing.lockedUntil.getTime() - now.getTime()) / 1000));
        throw new AppError(
          "idempotency_in_flight",
          `A ${scope.operation} call with this idempotency key is still in progress; retry after ${retryAfter} s`,
          { headers: { "Retry-After": String(retryAfter) }, details: { retry_after: retryAfter } },
        );
      }
      // abandoned by a crashed request: take it over atomically
      const taken = await db.idempotencyRecord.updateMany({
        where: { id: existing.id, state: "in_progress", lockedUntil: { lte: now } },
        data: { lockedUntil: lockedUntil() },
      });
      if (taken.count === 1) recordId = existing.id;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw storeUnavailable(error);
  }
  if (recordId === null) throw storeUnavailable(new Error("idempotency record contention"));

  let outcome: StoredOutcome;
  try {
    outcome = await run();
  } catch (error) {
    // Unexpected failure: nothing to replay. Release the key so a retry can run the operation again.
    await db.idempotencyRecord.delete({ where: { id: recordId } }).catch(() => undefined);
    throw error;
  }
  await execute(sql`
    UPDATE idempotency_records SET state = 'done', response_status = ${outcome.status}, response_body = ${outcome.bodyText}
    WHERE id = ${recordId}`);
  return { ...outcome, replayed: false };
};
