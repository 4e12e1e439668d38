import "server-only";

import { isUniqueViolation, type Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { execute, paramsAfter, query, sql, type Statement } from "@/lib/config/sql";
import { errorText, logger } from "@/lib/core/log";
import type { PaymentAttempt, Store } from "@/lib/generated/prisma/client";

import type { PaymentRail } from "./rail";

// Payment attempts as data (DECISIONS B12): one row per provider payment of a checkout, at most ONE current per
// checkout. The database holds that rule (partial unique index payment_attempts_one_current), not code paths
// agreeing: two completions recording a new attempt at once cannot both leave theirs current — the loser's insert
// fails on the index and is retried after the winner committed, superseding it in turn.

export type AttemptState =
  | "pending"
  | "requires_action"
  | "requires_payment_method"
  /** The provider cannot tell yet (a crypto digest not final on the chain). */
  | "processing"
  | "succeeded"
  | "declined"
  | "canceled"
  | "refunding"
  | "refunded";

/** States in which the provider may still turn the payment into a success (so it must be canceled or watched). */
export const OPEN_STATES: readonly AttemptState[] = [
  "pending",
  "requires_action",
  "requires_payment_method",
  "processing",
];

/** States no later provider answer may overwrite (the finisher owns them). */
const SETTLED_STATES: readonly AttemptState[] = ["refunding", "refunded"];

export type RecordAttemptInput = {
  checkoutId: string;
  storeId: string;
  rail: string;
  providerRef: string;
  amount: number;
  currency: string;
  state: AttemptState;
  /**
   * false: record it without making it current (a declined payment must not supersede a good one racing it).
   * Default true.
   */
  current?: boolean;
  /**
   * The provider most likely created this payment just now (the caller's charge): the first round goes straight
   * to the statement that records it without looking the reference up. When it was known after all (an idempotent
   * replay, a racing completion), that statement fails on the unique reference, changing nothing, and the next round
   * looks it up.
   */
  likelyNew?: boolean;
  /**
   * A write of the caller's that belongs with this record (the card payment's own note of the provider's answer):
   * written before the attempt is recorded, and in the same statement when the first round records a new one
   * (one round trip fewer; rolled back with it when that statement fails, and then written on its own).
   */
  alongside?: Statement;
};

export type RecordedAttempt = {
  attempt: PaymentAttempt;
  /** Attempts that were current until now and may still succeed at the provider: cancel them. */
  superseded: PaymentAttempt[];
};

/** A payment_attempts row as the driver adapter answers it (RETURNING *). */
type AttemptRow = {
  id: string;
  checkout_id: string;
  store_id: string;
  rail: string;
  provider_ref: string | null;
  amount: number;
  currency: string;
  state: string;
  is_current: boolean;
  refund_ref: string | null;
  card_brand: string | null;
  card_last4: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The row as Prisma's client answers it. */
const attemptOf = (row: AttemptRow): PaymentAttempt => ({
  id: row.id,
  checkoutId: row.checkout_id,
  storeId: row.store_id,
  rail: row.rail,
  providerRef: row.provider_ref,
  amount: row.amount,
  currency: row.currency,
  state: row.state,
  isCurrent: row.is_current,
  refundRef: row.refund_ref,
  cardBrand: row.card_brand,
  cardLast4: row.card_last4,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * The attempt of a provider reference (unique), in `storeId` when given: read on every card webhook and by the
 * finisher, so sent without Prisma's client (lib/config/sql.ts); the record Prisma's client reads.
 */
export const findAttempt = async (providerRef: string, storeId?: string): Promise<PaymentAttempt | null> => {
  const [row] = await query<AttemptRow>(
    storeId === undefined
      ? sql`SELECT * FROM payment_attempts WHERE provider_ref = ${providerRef}`
      : sql`SELECT * FROM payment_attempts WHERE provider_ref = ${providerRef} AND store_id = ${storeId}`,
  );
  return row ? attemptOf(row) : null;
};

/** The checkout's current attempt (at most one: the index); read on every crypto prepare, so on the adapter. */
export const currentAttempt = async (_db: Db, checkoutId: string): Promise<PaymentAttempt | null> => {
  const [row] = await query<AttemptRow>(
    sql`SELECT * FROM payment_attempts WHERE checkout_id = ${checkoutId} AND is_current`,
  );
  return row ? attemptOf(row) : null;
};

const NOTHING: Statement = { sql: "", args: [], argTypes: [] };

/**
 * The statement that records a new current attempt, with `alongside` as the first of its writes when given. A
 * data-modifying WITH runs whether or not the query reads it, and all of it commits or fails together.
 */
const recordNewStatement = (input: RecordAttemptInput, alongside: Statement | undefined): Statement => {
  const now = new Date();
  const { param: p, statement } = paramsAfter(alongside ?? NOTHING);
  return statement(`WITH ${alongside ? `alongside AS (${alongside.sql}),` : ""}
    previous AS (
      UPDATE payment_attempts
      SET is_current = (state = 'succeeded' AND ${p(input.state !== "succeeded")}), updated_at = ${p(now)}
      WHERE checkout_id = ${p(input.checkoutId)} AND is_current
      RETURNING *),
    kept AS (SELECT count(*) FILTER (WHERE is_current) > 0 AS paid FROM previous),
    recorded AS (
      INSERT INTO payment_attempts
        (id, checkout_id, store_id, rail, provider_ref, amount, currency, state, is_current, created_at, updated_at)
      SELECT ${p(newId("paymentAttempt"))}, ${p(input.checkoutId)}, ${p(input.storeId)}, ${p(input.rail)},
             ${p(input.providerRef)}, ${p(input.amount)}, ${p(input.currency)}, ${p(input.state)}, NOT kept.paid,
             ${p(now)}, ${p(now)}
      FROM kept
      RETURNING *)
  SELECT false AS inserted, * FROM previous
  UNION ALL
  SELECT true AS inserted, * FROM recorded`);
};

/**
 * Records what the provider answered for a payment. A provider reference seen for the first time becomes the
 * checkout's current attempt (the previous current one stops being current and is returned to be canceled); a
 * known one only gets its state updated (a replayed answer never makes a superseded attempt current again).
 */
export const recordAttempt = async (
  db: Db,
  { current = true, likelyNew = false, alongside, ...input }: RecordAttemptInput,
): Promise<RecordedAttempt> => {
  /** The caller's write, until it is written. */
  let unwritten = alongside;
  for (let round = 0; ; round++) {
    const straight = likelyNew && current && round === 0;
    if (!straight && unwritten) {
      await execute(unwritten);
      unwritten = undefined;
    }
    const known = straight ? null : await findAttempt(input.providerRef);
    if (known) {
      const { count } = await db.paymentAttempt.updateMany({
        where: { id: known.id, state: { notIn: [...SETTLED_STATES, "succeeded"] } },
        data: { state: input.state, amount: input.amount },
      });
      return {
        attempt: count ? { ...known, state: input.state, amount: input.amount } : known,
        superseded: [],
      };
    }
    if (!current) {
      await db.paymentAttempt.createMany({
        data: [{ id: newId("paymentAttempt"), ...input, isCurrent: false }],
        skipDuplicates: true,
      });
      return { attempt: (await findAttempt(input.providerRef))!, superseded: [] };
    }
    try {
      // One statement, so one round trip and atomic by itself (every card completion sends it): the current
      // attempt (at most one: the index) stops being current, unless it already succeeded and the newcomer has
      // not: money already taken is what pays for the order, so it stays current and the newcomer is recorded
      // not current, to be canceled (or refunded if it succeeds). `kept` counts the updated rows, so the UPDATE
      // has run before the INSERT is fed (PostgreSQL runs a data-modifying WITH as its output is read), and the
      // index sees the old row as no longer current.
      const rows = await query<AttemptRow & { inserted: boolean }>(recordNewStatement(input, unwritten));
      // written with the record (a failed statement wrote neither: the next round writes it first)
      unwritten = undefined;
      const attempt = attemptOf(rows.find((row) => row.inserted)!);
      // every previous row comes back as it was until now (current)
      const previous = rows
        .filter((row) => !row.inserted)
        .map((row) => ({ ...attemptOf(row), isCurrent: true }));
      if (!attempt.isCurrent) {
        return {
          attempt,
          superseded: (OPEN_STATES as readonly string[]).includes(input.state) ? [attempt] : [],
        };
      }
      return {
        attempt,
        superseded: previous.filter((p) => (OPEN_STATES as readonly string[]).includes(p.state)),
      };
    } catch (error) {
      // another writer made its attempt current (or recorded this reference) first: look again
      if (!isUniqueViolation(error) || round >= 5) throw error;
    }
  }
};

/** Updates an attempt's state from the provider unless the finisher already settled it (refunding/refunded). */
export const updateAttemptState = async (db: Db, providerRef: string, state: AttemptState): Promise<void> => {
  await db.paymentAttempt.updateMany({
    where: { providerRef, state: { notIn: [...SETTLED_STATES] } },
    data: { state },
  });
};

/**
 * Cancels superseded attempts at the provider. One the provider cannot cancel now (a challenge under way, a
 * provider without cancellation) stays open and not current: the reconciliation sweep looks at it again, and the
 * finisher refunds it if it ever succeeds.
 */
export const cancelSuperseded = async (
  db: Db,
  store: Store,
  rail: PaymentRail,
  superseded: readonly PaymentAttempt[],
): Promise<void> => {
  for (const attempt of superseded) {
    if (!attempt.providerRef) continue;
    try {
      const outcome = await rail.cancel(store, attempt.providerRef);
      if (outcome.kind === "canceled") await updateAttemptState(db, attempt.providerRef, "canceled");
    } catch (error) {
      // left to the sweep (it retries the cancel and refunds a success); never fails the new attempt
      logger().warn(`cancel ${attempt.providerRef}: ${errorText(error)}`);
    }
  }
};
