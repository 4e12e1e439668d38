import "server-only";

import { createHash } from "node:crypto";

import type { Db } from "@/lib/config/db";
import { faultPoint } from "@/lib/config/fault-point";
import { execute, sql } from "@/lib/config/sql";
import type { CardPayment, PaymentAttempt, Store } from "@/lib/generated/prisma/client";
import { cancelSuperseded, recordAttempt } from "@/lib/payments/attempts";
import type { ChargeOutcome, PaymentRail } from "@/lib/payments/rail";

import { refundUnplacedCardPayment } from "./finish-payment";

/**
 * The provider idempotency key of one payment attempt of a checkout, for one amount and one payment method
 * (Stripe refuses a key reused with other parameters, so what is charged is part of the key).
 */
export const chargeKey = (
  checkoutId: string,
  attempt: number,
  amount: number,
  token: string | null,
): string =>
  `acs-${checkoutId}-a${attempt}-${amount}-${createHash("sha256")
    .update(token ?? "")
    .digest("base64url")
    .slice(0, 16)}`;

/** A checkout's card payment as it is first written, before any charge: attempt 1, pending, no PaymentIntent. */
export const newCardPayment = (
  checkoutId: string,
  storeId: string,
  amount: number,
  currency: string,
  now: Date,
): CardPayment => ({
  checkoutId,
  storeId,
  attempt: 1,
  paymentIntentId: null,
  status: "pending",
  amount,
  currency,
  createdAt: now,
  updatedAt: now,
});

/**
 * The card-payment row of the checkout when the hold did not create it (holdSession): read when it exists already
 * (a later attempt, or a racing completion created it first); created here, in one statement, after a hold that
 * replaced the checkout's lines (a transaction of its own, which does not carry it).
 */
const cardPaymentOf = async (
  db: Db,
  store: Store,
  checkoutId: string,
  amount: number,
  currency: string,
): Promise<CardPayment> => {
  const now = new Date();
  // written in SQL, through the driver adapter (lib/config/sql.ts): Prisma's create would fail on the racing
  // creator's row, and createMany with skipDuplicates is compiled again on every call (docs/decisions.md "Plans
  // Prisma can reuse")
  const created = await execute(sql`
    INSERT INTO card_payments (checkout_id, store_id, attempt, status, amount, currency, created_at, updated_at)
    VALUES (${checkoutId}, ${store.id}, 1, 'pending', ${amount}, ${currency}, ${now}, ${now})
    ON CONFLICT (checkout_id) DO NOTHING`);
  if (created === 1) return newCardPayment(checkoutId, store.id, amount, currency, now);
  return db.cardPayment.findUniqueOrThrow({ where: { checkoutId } });
};

export type StartAttemptInput = {
  store: Store;
  checkoutId: string;
  handlerId: string;
  adapter: PaymentRail;
  amount: number;
  currency: string;
  /** The agent's credential (card: payment-method token); null → the buyer pays on the hosted page. */
  token: string | null;
  returnUrl: string;
  /** The card payment the hold created with it (attempt 1, pending), when it did. */
  created?: CardPayment | null;
};

/**
 * Step: start or reuse the checkout's payment attempt and settle it with the agent's credential. A payment of
 * this attempt that already succeeded (hosted page, a lost response) is reused without charging again; otherwise
 * the rail charges with a key derived from the checkout and its attempt (never from the request), so racing
 * completions and retries after a crash reach the same provider payment. The answer becomes the checkout's one
 * current attempt (B12; a decline never supersedes a payment racing it) and the previous one is canceled at the
 * provider, or left to the sweep when it cannot be. `retry`: an interrupted refund was finished first; go round.
 * `attempt`: the attempt row as this call recorded it (absent for an outcome without a provider reference), which
 * the finisher takes as its first read instead of reading it back.
 * @throws AppError payment_provider_error (nothing was charged)
 */
export const startAttempt = async (
  db: Db,
  input: StartAttemptInput,
): Promise<{ kind: "retry" } | { kind: "outcome"; outcome: ChargeOutcome; attempt?: PaymentAttempt }> => {
  const { store, checkoutId, adapter, amount } = input;
  const payment = input.created ?? (await cardPaymentOf(db, store, checkoutId, amount, input.currency));
  if (payment.status === "refunding" && payment.paymentIntentId) {
    // a refund of an earlier attempt was interrupted: finish it (same key), then charge a new attempt
    await refundUnplacedCardPayment(db, store, checkoutId, payment.paymentIntentId, adapter);
    return { kind: "retry" };
  }
  const known =
    payment.paymentIntentId && payment.status !== "declined" && payment.status !== "refunded"
      ? await adapter.retrieve(store, payment.paymentIntentId)
      : null;
  const outcome =
    known?.kind === "succeeded"
      ? known
      : await adapter.start({
          store,
          checkoutId,
          amount,
          currency: input.currency,
          credential: input.token ? { type: "card_token", token: input.token } : null,
          idempotencyKey: chargeKey(checkoutId, payment.attempt, amount, input.token),
          returnUrl: input.returnUrl,
        });
  // the crash test's moment: the provider charged, the PaymentIntent is not recorded yet
  if (outcome.kind === "succeeded") faultPoint("crash-after-provider");
  const noted = sql`
    UPDATE card_payments
    SET status = ${outcome.kind}, payment_intent_id = ${outcome.paymentRef}, amount = ${amount},
        updated_at = ${new Date()}
    WHERE checkout_id = ${checkoutId} AND attempt = ${payment.attempt}`;
  // a payment the provider made goes into the card payment with the attempt that records it, in one statement;
  // a decline's is written before its attempt number moves on (the update names the attempt)
  const withAttempt = outcome.paymentRef !== null && outcome.kind !== "declined";
  if (!withAttempt) await execute(noted);
  if (outcome.kind === "declined") {
    // the next attempt gets a new provider key (another card may be tried)
    await db.cardPayment.updateMany({
      where: { checkoutId, attempt: payment.attempt },
      data: { attempt: { increment: 1 } },
    });
  }
  if (outcome.paymentRef) {
    const { attempt, superseded } = await recordAttempt(db, {
      checkoutId,
      storeId: store.id,
      rail: input.handlerId,
      providerRef: outcome.paymentRef,
      amount,
      currency: input.currency,
      state: outcome.kind,
      current: outcome.kind !== "declined",
      // a reused payment of this attempt (known above) is recorded already
      likelyNew: known === null,
      ...(withAttempt ? { alongside: noted } : {}),
    });
    await cancelSuperseded(db, store, adapter, superseded);
    return { kind: "outcome", outcome, attempt };
  }
  return { kind: "outcome", outcome };
};
