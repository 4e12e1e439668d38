import "server-only";

import { getDb, type Db } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { OPEN_STATES, updateAttemptState } from "@/lib/payments/attempts";
import { findCardCharges } from "@/lib/payments/card/find-card-charges";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import type { ChargeOutcome, PaymentRail } from "@/lib/payments/rail";

import { moveCheckout } from "../state";
import { finishPayment } from "./finish-payment";

// The payment reconciliation sweep (issue #5 §5: "the next retry or a reconciliation job finishes the order from
// the PaymentIntent — never a second charge"). It finds card payments whose provider state may be ahead of ours —
// a PaymentIntent recorded, not declined or refunded, the checkout neither completed nor canceled, untouched for a
// grace period — retrieves each PaymentIntent through the rail port and, when it succeeded, places the order
// (placeOrder is idempotent; nothing is ever charged here); declines are recorded. A payment whose PaymentIntent
// id was never recorded (the process died right after Stripe answered) is looked up by the checkout id in the
// PaymentIntent metadata through Stripe's search API, for a checkout still held in complete_in_progress.
// Bounded batches, oldest first; a checked payment is touched so the next batch moves on. Runs from the worker
// loop (instrumentation.ts, every RECONCILE_INTERVAL_MS) and the admin CLI `reconcile-payments`.

export const RECONCILE_INTERVAL_MS = 60_000;
export const RECONCILE_GRACE_MS = 2 * 60_000;
export const RECONCILE_BATCH = 50;

export type ReconciledPayment = {
  checkoutId: string;
  store: string;
  paymentIntentId: string | null;
  /**
   * What the sweep did: placed (or found) the order, refunded, recorded a decline, left open, found nothing, or
   * left a buyer's payment without room waiting for the buyer's approval (DECISIONS B20).
   */
  result:
    | "order_placed"
    | "refunded"
    | "declined"
    | "open"
    | "not_found"
    | "ignored"
    | "awaiting_approval"
    | "error";
  orderId?: string;
  detail?: string;
};

export type ReconcileOptions = {
  now?: Date;
  /** Only this store's payments (the CLI's --store). */
  storeId?: string;
  graceMs?: number;
  limit?: number;
  rail?: PaymentRail;
  findCharges?: (store: Store, checkoutId: string) => Promise<ChargeOutcome[]>;
};

type Candidate = {
  checkout_id: string;
  store_id: string;
  payment_intent_id: string | null;
  status: string;
};

const candidates = (db: Db, before: Date, storeId: string | null, limit: number) =>
  db.$queryRawUnsafe<Candidate[]>(
    `SELECT cp.checkout_id, cp.store_id, cp.payment_intent_id, cp.status
       FROM card_payments cp JOIN checkout_sessions cs ON cs.id = cp.checkout_id
      WHERE cp.updated_at < $1
        AND ($2::text IS NULL OR cp.store_id = $2)
        AND cs.status NOT IN ('completed', 'canceled')
        AND ((cp.payment_intent_id IS NOT NULL AND cp.status NOT IN ('declined', 'refunded'))
          OR (cp.payment_intent_id IS NULL AND cp.status = 'pending' AND cs.status = 'complete_in_progress'))
      ORDER BY cp.updated_at, cp.checkout_id
      LIMIT $3`,
    before,
    storeId,
    limit,
  );

/** One sweep: at most `limit` payments; returns what it did with each. */
export const reconcileCardPayments = async ({
  now = new Date(),
  storeId,
  graceMs = RECONCILE_GRACE_MS,
  limit = RECONCILE_BATCH,
  rail = stripeCardRail,
  findCharges = findCardCharges,
}: ReconcileOptions = {}): Promise<ReconciledPayment[]> => {
  const db = await getDb();
  const rows = await candidates(db, new Date(now.getTime() - graceMs), storeId ?? null, limit);
  const stores = new Map<string, Store>();
  const results: ReconciledPayment[] = [];
  for (const row of rows) {
    const store =
      stores.get(row.store_id) ?? (await db.store.findUniqueOrThrow({ where: { id: row.store_id } }));
    stores.set(store.id, store);
    const report = (r: Omit<ReconciledPayment, "checkoutId" | "store">) =>
      results.push({ checkoutId: row.checkout_id, store: store.slug, ...r });
    try {
      let outcome: ChargeOutcome | null;
      if (row.payment_intent_id) outcome = await rail.retrieve(store, row.payment_intent_id);
      else {
        const found = await findCharges(store, row.checkout_id);
        outcome = found.find((o) => o.kind === "succeeded") ?? null;
      }
      if (outcome?.kind === "succeeded") {
        const finished = await finishPayment(db, store, row.checkout_id, outcome.paymentRef, {
          now,
          rail,
          method: outcome.method,
        });
        if (finished.result === "order_placed") {
          report({ paymentIntentId: outcome.paymentRef, result: "order_placed", orderId: finished.orderId });
        } else
          report({ paymentIntentId: outcome.paymentRef, result: finished.result, detail: finished.reason });
        continue;
      }
      if (outcome?.kind === "declined") {
        // recorded as a completion records it: the next attempt gets a new provider key; a held session reopens
        const { count } = await db.cardPayment.updateMany({
          where: { checkoutId: row.checkout_id, status: row.status, paymentIntentId: row.payment_intent_id },
          data: { status: "declined", attempt: { increment: 1 } },
        });
        if (row.payment_intent_id) await updateAttemptState(db, row.payment_intent_id, "declined");
        if (count === 1) {
          await moveCheckout(db, {
            id: row.checkout_id,
            from: ["complete_in_progress"],
            to: "ready_for_complete",
          });
        }
        report({ paymentIntentId: row.payment_intent_id, result: "declined", detail: outcome.reason });
        continue;
      }
      // still open at the provider (3-DS pending, no card yet) or nothing charged: touched only if unchanged,
      // so the next batch moves on and a concurrent finisher's write is never overwritten
      await db.cardPayment.updateMany({
        where: { checkoutId: row.checkout_id, status: row.status, paymentIntentId: row.payment_intent_id },
        data: { status: outcome?.kind ?? row.status },
      });
      report({
        paymentIntentId: outcome?.paymentRef ?? row.payment_intent_id,
        result: outcome ? "open" : "not_found",
        ...(outcome ? { detail: outcome.kind } : {}),
      });
    } catch (error) {
      report({ paymentIntentId: row.payment_intent_id, result: "error", detail: (error as Error).message });
    }
  }
  for (const attempt of await supersededCandidates(
    db,
    rail.id,
    new Date(now.getTime() - graceMs),
    storeId ?? null,
    limit,
  )) {
    const store =
      stores.get(attempt.storeId) ?? (await db.store.findUniqueOrThrow({ where: { id: attempt.storeId } }));
    stores.set(store.id, store);
    const ref = attempt.providerRef!;
    const report = (r: Omit<ReconciledPayment, "checkoutId" | "store" | "paymentIntentId">) =>
      results.push({ checkoutId: attempt.checkoutId, store: store.slug, paymentIntentId: ref, ...r });
    try {
      const outcome: ChargeOutcome =
        attempt.state === "refunding"
          ? { kind: "succeeded", paymentRef: ref }
          : await rail.retrieve(store, ref);
      if (outcome.kind === "succeeded") {
        // a superseded attempt that succeeded after all (3-DS answered late): the finisher refunds it in full
        const finished = await finishPayment(db, store, attempt.checkoutId, ref, {
          now,
          rail,
          method: outcome.method,
        });
        report({
          result: finished.result,
          ...(finished.result === "order_placed"
            ? { orderId: finished.orderId }
            : { detail: finished.reason }),
        });
        continue;
      }
      if (outcome.kind === "declined") {
        await updateAttemptState(db, ref, "declined");
        report({ result: "declined", detail: outcome.reason });
        continue;
      }
      // still open at the provider: cancel it now if the provider lets us, else look again next sweep
      const canceled = await rail.cancel(store, ref);
      await db.paymentAttempt.updateMany({
        where: { id: attempt.id, state: attempt.state },
        data: { state: canceled.kind === "canceled" ? "canceled" : outcome.kind },
      });
      report({ result: "open", detail: canceled.kind === "canceled" ? "canceled" : outcome.kind });
    } catch (error) {
      report({ result: "error", detail: (error as Error).message });
    }
  }
  return results;
};

/**
 * Attempts that may still turn into money nobody ordered: not current and still open at the provider (a
 * superseded 3-DS the buyer may yet answer), or a refund whose intent was written but not its outcome.
 */
const supersededCandidates = (db: Db, railId: string, before: Date, storeId: string | null, limit: number) =>
  db.paymentAttempt.findMany({
    where: {
      rail: railId,
      updatedAt: { lt: before },
      providerRef: { not: null },
      ...(storeId ? { storeId } : {}),
      OR: [{ isCurrent: false, state: { in: [...OPEN_STATES] } }, { state: "refunding" }],
    },
    orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
    take: limit,
  });
