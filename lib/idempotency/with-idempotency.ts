import "server-only";

import { getDb, isUniqueViolation } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { execute, paramsAfter, sql, type Statement } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { IdempotentWrite, OperationResult, RecordAnswer } from "@/lib/core/operation";
import { timeStageSync } from "@/lib/ops/server-timing";

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

type Claimed = { recordId: string } | { replay: StoredOutcome };

/**
 * Takes the scope's key as an in-progress record, or answers what the key already holds: its stored answer, or a
 * refusal (reused with other arguments, still in flight).
 * @throws AppError idempotency_key_reused, idempotency_in_flight, service_unavailable
 */
const claimOrAnswer = async (scope: IdempotencyScope, hash: string): Promise<Claimed> => {
  const db = await getDb();
  const { now } = scope;
  const lockedUntil = () => new Date(now.getTime() + IDEMPOTENCY_LOCK_MS);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
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
      if (count === 1) return { recordId: id };
      const held = await heldAnswer(scope, hash);
      if (held.kind === "answer") return { replay: held.outcome };
      if (held.kind === "gone") continue;
      // abandoned by a crashed request: take it over atomically
      const taken = await db.idempotencyRecord.updateMany({
        where: { id: held.id, state: "in_progress", lockedUntil: { lte: now } },
        data: { lockedUntil: lockedUntil() },
      });
      if (taken.count === 1) return { recordId: held.id };
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw storeUnavailable(error);
  }
  throw storeUnavailable(new Error("idempotency record contention"));
};

type Held =
  | { kind: "answer"; outcome: StoredOutcome }
  /** No record any more (expired and purged, or released by a failed run): the key is free again. */
  | { kind: "gone" }
  /** An in-progress record whose lock expired: its request died. */
  | { kind: "abandoned"; id: string };

/**
 * What the key holds once a claim or an answer's record found it taken.
 * @throws AppError idempotency_key_reused (other arguments), idempotency_in_flight (still running)
 */
const heldAnswer = async (scope: IdempotencyScope, hash: string): Promise<Held> => {
  const db = await getDb();
  const { now } = scope;
  const existing = await db.idempotencyRecord.findUnique({ where: { scopeHash: hash } });
  if (!existing) return { kind: "gone" };
  if (existing.expiresAt <= now) {
    await db.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
    return { kind: "gone" };
  }
  if (existing.requestHash !== scope.requestHash) {
    throw new AppError(
      "idempotency_key_reused",
      `Idempotency key "${scope.key}" was already used for ${scope.operation} with different arguments; use a fresh key per logical attempt`,
    );
  }
  if (existing.state === "done" && existing.responseStatus !== null && existing.responseBody !== null) {
    return { kind: "answer", outcome: { status: existing.responseStatus, bodyText: existing.responseBody } };
  }
  if (existing.lockedUntil > now) {
    const retryAfter = Math.max(1, Math.ceil((existing.lockedUntil.getTime() - now.getTime()) / 1000));
    throw new AppError(
      "idempotency_in_flight",
      `A ${scope.operation} call with this idempotency key is still in progress; retry after ${retryAfter} s`,
      { headers: { "Retry-After": String(retryAfter) }, details: { retry_after: retryAfter } },
    );
  }
  return { kind: "abandoned", id: existing.id };
};

const purgeNowAndThen = async (now: Date): Promise<void> => {
  if (now.getTime() - lastPurgeAt <= PURGE_INTERVAL_MS) return;
  lastPurgeAt = now.getTime();
  await purgeExpiredIdempotencyRecords(now).catch(() => 0); // best effort: expiry is also checked per read
};

const finish = (recordId: string, outcome: StoredOutcome) =>
  execute(sql`
    UPDATE idempotency_records SET state = 'done', response_status = ${outcome.status}, response_body = ${outcome.bodyText}
    WHERE id = ${recordId}`);

const release = async (recordId: string) => {
  const db = await getDb();
  await db.idempotencyRecord.delete({ where: { id: recordId } }).catch(() => undefined);
};

/**
 * For a request refused before it could be fingerprinted (its arguments fail validation): a key that already holds
 * a record was used for another request — an invalid one never stores one — so the answer is the key's conflict,
 * as for any other arguments, not the validation error. A free key lets the caller's refusal stand.
 * @throws AppError idempotency_key_reused
 */
export const refuseReusedKey = async (scope: Omit<IdempotencyScope, "requestHash">): Promise<void> => {
  let held: { expiresAt: Date } | null;
  try {
    const db = await getDb();
    held = await db.idempotencyRecord.findUnique({
      where: { scopeHash: scopeHash(scope) },
      select: { expiresAt: true },
    });
  } catch {
    return; // the key store being down changes nothing here: the request is refused for its arguments anyway
  }
  if (held && held.expiresAt > scope.now) {
    throw new AppError(
      "idempotency_key_reused",
      `Idempotency key "${scope.key}" was already used for ${scope.operation} with different arguments; use a fresh key per logical attempt`,
    );
  }
};

/** Runs `run` at most once per scope; see the header comment for the rules. */
export const withIdempotency = async (
  scope: IdempotencyScope,
  run: () => Promise<StoredOutcome>,
): Promise<StoredOutcome & { replayed: boolean }> => {
  await purgeNowAndThen(scope.now);
  const claimed = await claimOrAnswer(scope, scopeHash(scope));
  if ("replay" in claimed) return { ...claimed.replay, replayed: true };

  let outcome: StoredOutcome;
  try {
    outcome = await run();
  } catch (error) {
    // Unexpected failure: nothing to replay. Release the key so a retry can run the operation again.
    await release(claimed.recordId);
    throw error;
  }
  await finish(claimed.recordId, outcome);
  return { ...outcome, replayed: false };
};

// ── The answer stored by the operation's own write ─────────────────────────────────────────────────────────────
//
// An operation whose only write is one statement (create_checkout, update_checkout) needs no claim before it runs
// and no record after it: its write stores the answer too, in the same statement (`write` below), so a fresh key
// costs no statement of its own. Nothing is stored before that write, so the rules hold this way:
// - the key already taken (a replay, a concurrent twin that wrote first, other arguments): the record's insert
//   violates the key's unique index, the whole statement fails — the operation's write with it — and the key's
//   record decides the answer, as a claim would have (replay, idempotency_key_reused, idempotency_in_flight);
//   two concurrent twins both run, the second's write waits on the first's key and fails: one write, one answer;
// - the operation wrote nothing (an answer read from the database, or a refusal it stored before as an outcome):
//   its answer is recorded after it, unless the key holds one already, which is answered instead;
// - it fails unexpectedly: its write failed or never ran, so nothing is stored and nothing is released;
// - a path of the operation that writes otherwise (a transaction of its own) calls `claim()` first and goes on as
//   withIdempotency does: an in-progress record, its answer written after it, released when it fails;
// - an operation whose first write comes before work that cannot be undone (complete_checkout's hold, before the
//   charge) claims the key with that write (`claimWith`): the in-progress record goes in with the write, or the
//   write fails with the taken key, and from then on it goes on as withIdempotency does.

/** The key turned out to be taken while the operation ran: its write (if any) failed with it, nothing is stored. */
class KeyTaken extends Error {
  constructor(
    readonly answer?: StoredOutcome,
    readonly refusal?: AppError,
  ) {
    super("idempotency key taken");
    this.name = "KeyTaken";
  }
}

/** Bodies already rendered for the record their write stored: the answer sent is that text, rendered once. */
const rendered = new WeakMap<object, string>();

/** Renders an operation's answer as it is stored and sent (the `render` stage). */
export const outcomeOf = (result: OperationResult): StoredOutcome => {
  let bodyText = rendered.get(result.body);
  if (bodyText === undefined) {
    bodyText = timeStageSync("render", () => JSON.stringify(result.body));
    rendered.set(result.body, bodyText);
  }
  return { status: result.status ?? 200, bodyText };
};

/**
 * Runs `run` with a handle its operation writes its answer through (ctx.idempotency); same rules as
 * withIdempotency. `run` renders the operation's outcome; when the operation's write stored an answer, that
 * answer is the one given.
 */
export const withIdempotentWrite = async (
  scope: IdempotencyScope,
  run: (handle: IdempotentWrite) => Promise<StoredOutcome>,
): Promise<StoredOutcome & { replayed: boolean }> => {
  const { now } = scope;
  const hash = scopeHash(scope);
  await purgeNowAndThen(now);

  for (let attempt = 0; attempt < 3; attempt++) {
    let claimedId: string | null = null;
    let recorded: StoredOutcome | null = null;
    /** Appends the key's record (`state`) to the operation's write and sends it; a taken key fails it whole. */
    const sendWith = async (
      build: (record: RecordAnswer | null) => Statement,
      id: string,
      answer: StoredOutcome | null,
    ): Promise<number> => {
      const record: RecordAnswer = (head, written) => {
        const { param, statement } = paramsAfter(head);
        const state = answer ? "done" : "in_progress";
        return statement(`${head.sql}
          INSERT INTO idempotency_records (id, scope_hash, principal_id, store_slug, operation, "key", request_hash,
            state, response_status, response_body, created_at, locked_until, expires_at)
          SELECT ${param(id)}, ${param(hash)}, ${param(scope.principalId)}, ${param(scope.storeSlug)},
            ${param(scope.operation)}, ${param(scope.key)}, ${param(scope.requestHash)},
            CAST(${param(state)} AS idempotency_state), CAST(${param(answer?.status ?? null)} AS integer),
            CAST(${param(answer?.bodyText ?? null)} AS text), ${param(now)},
            ${param(answer ? now : new Date(now.getTime() + IDEMPOTENCY_LOCK_MS))},
            ${param(new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS))}
          WHERE EXISTS (SELECT 1 FROM ${written})`);
      };
      try {
        return await execute(build(record));
      } catch (error) {
        if (isUniqueViolation(error)) throw new KeyTaken();
        throw error;
      }
    };
    const handle: IdempotentWrite = {
      claim: async () => {
        if (claimedId !== null || recorded !== null) return;
        const claimed = await claimOrAnswer(scope, hash).catch((error: unknown) => {
          // a refusal of the key is the call's answer, not the operation's: never stored as its outcome
          throw error instanceof AppError ? new KeyTaken(undefined, error) : error;
        });
        if ("replay" in claimed) throw new KeyTaken(claimed.replay);
        claimedId = claimed.recordId;
      },
      claimWith: async (build) => {
        if (claimedId !== null || recorded !== null) return execute(build(null));
        const id = newId("idempotency");
        const count = await sendWith(build, id, null);
        if (count > 0) claimedId = id;
        return count;
      },
      write: async (build, result) => {
        if (claimedId !== null) return execute(build(null));
        if (recorded !== null) throw new Error("an in-write operation stores one answer with one write");
        const outcome = outcomeOf(result);
        const count = await sendWith(build, newId("idempotency"), outcome);
        if (count > 0) recorded = outcome;
        return count;
      },
    };

    let outcome: StoredOutcome;
    try {
      outcome = await run(handle);
    } catch (error) {
      if (claimedId !== null) {
        await release(claimedId);
        throw error;
      }
      if (!(error instanceof KeyTaken)) throw error; // nothing was stored
      if (error.answer) return { ...error.answer, replayed: true };
      if (error.refusal) throw error.refusal;
      const held = await heldOrUnavailable(scope, hash);
      if (held.kind === "answer") return { ...held.outcome, replayed: true };
      continue; // the key is free again: run once more
    }
    if (recorded !== null) return { ...(recorded as StoredOutcome), replayed: false };
    if (claimedId !== null) {
      await finish(claimedId, outcome);
      return { ...outcome, replayed: false };
    }
    // the operation wrote nothing: its answer is stored unless the key holds one already
    const stored = await storeAnswer(scope, hash, outcome);
    if (stored) return { ...outcome, replayed: false };
    const held = await heldOrUnavailable(scope, hash);
    if (held.kind === "answer") return { ...held.outcome, replayed: true };
  }
  throw storeUnavailable(new Error("idempotency record contention"));
};

const heldOrUnavailable = async (scope: IdempotencyScope, hash: string): Promise<Held> => {
  try {
    const held = await heldAnswer(scope, hash);
    if (held.kind !== "abandoned") return held;
    // an in-progress record whose request died: free the key, as a claim would have taken it over
    const db = await getDb();
    await db.idempotencyRecord.deleteMany({
      where: { id: held.id, state: "in_progress", lockedUntil: { lte: scope.now } },
    });
    return { kind: "gone" };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw storeUnavailable(error);
  }
};

/** Records an answer the operation gave without writing; false when the key already holds a record. */
const storeAnswer = async (
  scope: IdempotencyScope,
  hash: string,
  outcome: StoredOutcome,
): Promise<boolean> => {
  const { now } = scope;
  try {
    const count = await execute(sql`
      INSERT INTO idempotency_records (id, scope_hash, principal_id, store_slug, operation, "key", request_hash,
        state, response_status, response_body, created_at, locked_until, expires_at)
      VALUES (${newId("idempotency")}, ${hash}, ${scope.principalId}, ${scope.storeSlug}, ${scope.operation},
        ${scope.key}, ${scope.requestHash}, 'done', ${outcome.status}, ${outcome.bodyText}, ${now}, ${now},
        ${new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS)})
      ON CONFLICT DO NOTHING`);
    return count === 1;
  } catch (error) {
    throw storeUnavailable(error);
  }
};
