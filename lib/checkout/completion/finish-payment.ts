import "server-only";

import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

import { isUniqueViolation, type Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { execute, query, sql } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import { logger } from "@/lib/core/log";
import { couponFaceOf } from "@/lib/coupons/redeem";
import type { PaymentAttempt, Store } from "@/lib/generated/prisma/client";
import { isNoRoom, reserveAtPlacement } from "@/lib/mandates/buyer-spend";
import { CARD_RESERVATION_MS } from "@/lib/mandates/spend-for-checkout";
import { placeOrder, SpendNotReserved } from "@/lib/orders/place-order";
import { ORDER_INCLUDE, orderToWire } from "@/lib/orders/to-wire";
import { findAttempt, recordAttempt } from "@/lib/payments/attempts";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import type { PaymentMethodSummary, PaymentRail } from "@/lib/payments/rail";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";
import { UCP_VERSION } from "@/lib/ucp/version";
import { appendOrderEvent } from "@/lib/webhooks/append-order-event";

import type { CheckoutRecord } from "../checkout-record";
import { moveCheckout } from "../state";

// THE finisher (DECISIONS B12): every payment that succeeded at the provider goes through here, whoever saw it
// first — the completing call itself, an agent's retry, the Stripe webhook, the hosted page's return and the
// reconciliation sweep. It decides, for one succeeded provider payment of a checkout:
// - the checkout's current attempt and no order yet → place the order (placeOrder is idempotent: one order);
// - an attempt that is not current, or a checkout whose order holds another payment → refund it in full: the
//   intent is written first (attempt state `refunding`), then the provider is asked with the stable key
//   `acs-refund-<ref>`, then `refunded`; the refund is logged, shown on the order (an adjustment) and emitted as
//   an order event. It never touches the order's payment reference.
// So net charged = order total whatever arrives late, twice or out of order. When the order of the current
// payment cannot be placed (stock gone, checkout canceled) that payment is refunded too (refundUnplacedCardPayment).

export type FinishedPayment =
  /**
   * checkout: as this call's order transaction completed it, when asked (`withCheckout`; absent when the order was
   * placed before)
   */
  | { result: "order_placed"; orderId: string; checkout?: CheckoutRecord }
  /** cause: why the order of the current payment could not be placed (out_of_stock, canceled checkout). */
  | { result: "refunded"; reason: string; cause?: AppError }
  /**
   * A buyer's crypto payment that landed with no room on the allowance (DECISIONS B20): no order; the checkout
   * waits in requires_escalation for the buyer to approve or decline it on the payment page (continue_url).
   */
  | { result: "awaiting_approval"; reason: string; cause: AppError }
  | { result: "ignored"; reason: string };

/** How long a landed crypto payment waits for the buyer's approval before it is owed back (DECISIONS B20). */
export const APPROVAL_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Gives back a charge whose order cannot be placed (stock gone, checkout canceled). The intent is written first
 * (`refunding`), then the provider refunds with the completion's key (`acs-refund-<pi>`), then the payment is
 * `refunded` and the session reopens without its hosted link: a crash in between leaves `refunding`, which every
 * finisher (retry, webhook, sweep) completes with the same key — one refund, and never an order.
 */
export const refundUnplacedCardPayment = async (
  db: Db,
  store: Store,
  checkoutId: string,
  paymentIntentId: string,
  rail: PaymentRail = stripeCardRail,
): Promise<void> => {
  await db.cardPayment.updateMany({
    where: { checkoutId, status: { not: "refunded" } },
    data: { status: "refunding", paymentIntentId },
  });
  await db.paymentAttempt.updateMany({
    where: { providerRef: paymentIntentId, state: { not: "refunded" } },
    data: { state: "refunding" },
  });
  await rail.refund(store, paymentIntentId, `acs-refund-${paymentIntentId}`);
  // a refunded payment is never finished: the next completion is a new attempt with a new key
  await db.cardPayment.updateMany({
    where: { checkoutId, status: "refunding" },
    data: { status: "refunded", attempt: { increment: 1 } },
  });
  await db.paymentAttempt.updateMany({
    where: { providerRef: paymentIntentId, state: "refunding" },
    data: { state: "refunded" },
  });
  await moveCheckout(db, {
    id: checkoutId,
    from: ["complete_in_progress", "requires_escalation"],
    to: "ready_for_complete",
    data: { continueToken: null },
  });
};

/**
 * Refunds in full a success that must not pay for the order: an attempt that is no longer current, or a payment
 * of a checkout whose order holds another one. Intent first, stable key, shown on the order, emitted as an event.
 * Idempotent: a refund already recorded is not asked again; a crash after the intent is finished by the next
 * finisher (the sweep looks at `refunding` attempts) with the same key.
 */
/**
 * A success that became current (it superseded the attempt in flight) but lost the race for the order is being
 * refunded: the attempt that paid for the order is the checkout's current one again, so a checkout with an order
 * always has exactly one current attempt. A newer attempt made current meanwhile wins (the unique index says so).
 */
const restorePayingAttempt = async (db: Db, checkoutId: string): Promise<void> => {
  const order = await db.order.findUnique({ where: { checkoutId }, select: { paymentRef: true } });
  if (!order?.paymentRef) return;
  try {
    await db.paymentAttempt.updateMany({
      where: { providerRef: order.paymentRef, checkoutId, state: "succeeded", isCurrent: false },
      data: { isCurrent: true },
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
};

export const refundSupersededPayment = async (
  db: Db,
  store: Store,
  input: { checkoutId: string; providerRef: string; rail?: PaymentRail; reason: string },
): Promise<FinishedPayment> => {
  const rail = input.rail ?? stripeCardRail;
  const attempt = await findAttempt(input.providerRef);
  if (attempt?.state === "refunded") return { result: "refunded", reason: input.reason };
  // the intent, before the provider is asked (a crash from here on is finished with the same key)
  if (attempt) {
    await db.paymentAttempt.updateMany({
      where: { id: attempt.id, state: { not: "refunded" } },
      data: { state: "refunding", isCurrent: false },
    });
    if (attempt.isCurrent) await restorePayingAttempt(db, input.checkoutId);
  } else {
    const checkout = await db.checkoutSession.findUniqueOrThrow({
      where: { id: input.checkoutId },
      select: { currency: true, totals: true },
    });
    const total =
      (checkout.totals as { type: string; amount: number }[] | null)?.find((t) => t.type === "total")
        ?.amount ?? 0;
    await db.paymentAttempt.createMany({
      data: [
        {
          id: newId("paymentAttempt"),
          checkoutId: input.checkoutId,
          storeId: store.id,
          rail: rail.id,
          providerRef: input.providerRef,
          amount: total,
          currency: checkout.currency,
          state: "refunding",
          isCurrent: false,
        },
      ],
      skipDuplicates: true,
    });
  }
  const outcome = await rail.refund(store, input.providerRef, `acs-refund-${input.providerRef}`);
  // `refused` with "already refunded" is the provider's answer to a refund a crashed finisher already got
  const refundRef = outcome.kind === "succeeded" ? outcome.refundRef : null;
  const settled = await db.$transaction(async (tx) => {
    const { count } = await tx.paymentAttempt.updateMany({
      where: { providerRef: input.providerRef, state: "refunding" },
      data: { state: "refunded", refundRef, isCurrent: false },
    });
    if (count !== 1) return null;
    const refunded = await tx.paymentAttempt.findUniqueOrThrow({ where: { providerRef: input.providerRef } });
    const order = await tx.order.findUnique({ where: { checkoutId: input.checkoutId } });
    if (!order) return refunded;
    // shown on the order: the extra payment and its refund, with no effect on what the merchant may refund
    await tx.orderAdjustment.create({
      data: {
        id: newId("orderAdjustment"),
        orderId: order.id,
        type: "duplicate_payment_refund",
        status: outcome.kind === "succeeded" ? "completed" : "failed",
        occurredAt: new Date(),
        totals: [],
        refundMinor: 0,
        refundRef,
        description:
          rail.id === RAIL_HANDLER_IDS.crypto
            ? `A second payment ${input.providerRef} of ${refunded.amount} (minor units, ${refunded.currency}) for this checkout is owed back to the buyer in full (${refundRef ?? "not recorded"}): ${input.reason}`
            : `A second payment ${input.providerRef} of ${refunded.amount} (minor units, ${refunded.currency}) for this checkout was refunded in full: ${input.reason}`,
        ...(outcome.kind === "refused" ? { failure: outcome.reason } : {}),
      },
    });
    const updated = await tx.order.findUniqueOrThrow({ where: { id: order.id }, include: ORDER_INCLUDE });
    await appendOrderEvent(tx, {
      storeId: order.storeId,
      orderId: order.id,
      kind: "order.updated",
      payload: orderToWire(updated, { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION }),
    });
    return refunded;
  });
  if (settled) {
    logger().warn(
      { checkout_id: input.checkoutId, payment_ref: input.providerRef },
      `payment ${input.providerRef} of checkout ${input.checkoutId} refunded in full (${outcome.kind}): ${input.reason}`,
    );
  }
  return { result: "refunded", reason: input.reason };
};

type StoredTotal = { totals: { type: string; amount: number }[] | null; couponGrantId: string | null };

/**
 * The checkout's stored total (null when it is gone) and the face value of the coupon it holds (couponFaceOf), from
 * the checkout as the finisher read it with its order (every crypto completion asks).
 */
const liveTotalAndCouponOf = async (
  db: Db,
  checkoutId: string,
  checkout: StoredTotal | null,
): Promise<{ total: number | null; coupon: number }> => {
  if (!checkout) return { total: null, coupon: 0 };
  const total = checkout.totals?.find((t) => t.type === "total")?.amount ?? null;
  if (total === null) return { total, coupon: 0 };
  return { total, coupon: checkout.couponGrantId ? await couponFaceOf(db, checkoutId) : 0 };
};

/**
 * Makes a landed, not-current payment the checkout's current attempt when no payment has succeeded for it yet
 * (the current one is an unpaid prepare). Returns the attempt as it now is, or null when another payment holds
 * the checkout (then this one is the extra payment).
 */
const promoteLandedAttempt = async (db: Db, attempt: PaymentAttempt): Promise<PaymentAttempt | null> => {
  try {
    return await db.$transaction(async (tx) => {
      const holder = await tx.paymentAttempt.findFirst({
        where: { checkoutId: attempt.checkoutId, isCurrent: true },
      });
      if (holder && holder.id !== attempt.id && holder.state === "succeeded") return null;
      if (holder && holder.id !== attempt.id) {
        await tx.paymentAttempt.update({ where: { id: holder.id }, data: { isCurrent: false } });
      }
      return tx.paymentAttempt.update({ where: { id: attempt.id }, data: { isCurrent: true } });
    });
  } catch (error) {
    // another writer made its attempt current first: this one stays an extra payment
    if (isUniqueViolation(error)) return null;
    throw error;
  }
};

/**
 * placeOrder, again after a version conflict: a completion or another finisher touched the checkout between its
 * read and its write (placeOrder returns the order when that writer placed it). Bounded: the last conflict is
 * thrown (the caller's retry, the webhook's redelivery or the next sweep finishes it).
 */
const placeOrderRetrying = async (db: Db, input: Parameters<typeof placeOrder>[1]) => {
  for (let round = 1; ; round++) {
    try {
      return await placeOrder(db, input);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "conflict" || round >= 5) throw error;
      await sleep(Math.floor(Math.random() * 5 * round));
    }
  }
};

type FinishOptions = {
  now?: Date;
  rail?: PaymentRail;
  /**
   * The attempt of `paymentIntentId` as the caller read it just before this call (the Stripe webhook looks it
   * up to find the checkout) or wrote it (the completion records it), taken as this finisher's own first read
   * when no other finisher of the payment ran in between in this process; read here otherwise. A change another
   * instance made since is decided as the database decides every race here: placeOrder's transaction and the
   * attempts' conditional writes.
   */
  attempt?: PaymentAttempt;
  /**
   * The card behind the payment (receipt), or how to fetch it: called only when this finisher records the
   * success, never when the order or a refund already settled it (a late webhook asks the provider nothing).
   */
  method?: PaymentMethodSummary | (() => Promise<PaymentMethodSummary | undefined>);
  /** The caller renders the completed checkout: an order placed here hands it back (`checkout` in the result). */
  withCheckout?: boolean;
  /** The buyer approved this payment on the payment page (it landed without room on their allowance). */
  spendApproved?: boolean;
  /** A crypto payment's combined group (null: a single prepare), when the caller read its prepared payment. */
  cryptoGroupId?: string | null;
};

/**
 * Reserves a buyer's purchase that reached placement without a live reservation (DECISIONS B20). Returns null when
 * it is reserved now (placeOrder then debits it), or the no-room error that refuses it: no allowance, paused,
 * revoked, expired, or over a limit. `approved`: the buyer approved this payment, so the limits are not checked.
 */
const reserveOrRefuse = async (
  db: Db,
  store: Store,
  unreserved: SpendNotReserved,
  now: Date,
  approved: boolean,
): Promise<AppError | null> => {
  try {
    await reserveAtPlacement(db, {
      spender: unreserved.spender,
      store,
      checkoutId: unreserved.checkoutId,
      amount: unreserved.total,
      currency: unreserved.currency,
      now,
      expiresAt: new Date(now.getTime() + CARD_RESERVATION_MS),
      force: approved,
    });
    return null;
  } catch (error) {
    if (isNoRoom(error)) return error;
    throw error;
  }
};

/**
 * A buyer's crypto payment that landed without room: it cannot be recalled, and it is not made into an order
 * behind the buyer's back. The attempt waits (`awaiting_approval`, its clock the first time it was set) and the
 * checkout asks for the buyer (requires_escalation at its payment link, kept when it exists): the buyer approves
 * it there (the allowance records it) or declines it, and the sweep owes it back after APPROVAL_WINDOW_MS.
 */
const awaitApproval = async (
  db: Db,
  store: Store,
  checkoutId: string,
  providerRef: string,
  now: Date,
): Promise<void> => {
  await execute(sql`
    UPDATE payment_attempts SET state = 'awaiting_approval', updated_at = ${now}
    WHERE provider_ref = ${providerRef} AND state NOT IN ('refunding', 'refunded', 'awaiting_approval')`);
  const session = await db.checkoutSession.findUnique({
    where: { id: checkoutId },
    select: { continueToken: true },
  });
  await moveCheckout(db, {
    id: checkoutId,
    from: ["ready_for_complete", "complete_in_progress"],
    to: "requires_escalation",
    data: { continueToken: session?.continueToken ?? randomBytes(24).toString("base64url") },
  });
  logger().warn(
    { checkout_id: checkoutId, payment_ref: providerRef, store: store.slug },
    `payment ${providerRef} of checkout ${checkoutId} landed without room on the buyer's allowance: waiting for the buyer's approval`,
  );
};

/**
 * The finishers of each payment under way in this process, one after the other. A completion and the provider's
 * event for its payment usually arrive together (the provider sends the event as it answers): run at once, both
 * found no order, and the one that lost the order's transaction had taken stock, was rolled back and looked the
 * order up, about ten statements for nothing. In turn, the second finds the order the first placed (two reads).
 * Finishers of different payments of one checkout still run side by side (an extra payment's refund is written on
 * the order the other one is placing). Only an economy: across instances the database decides, as it always does
 * (placeOrder, the attempts' index).
 */
const finishing = new Map<string, Promise<unknown>>();

/**
 * The one finisher of a payment that succeeded at the provider (see above). Nothing here charges.
 * @throws AppError payment_provider_error (the refund could not be asked: the next finisher retries it)
 */
export const finishPayment = (
  db: Db,
  store: Store,
  checkoutId: string,
  paymentIntentId: string,
  options: FinishOptions = {},
): Promise<FinishedPayment> => {
  const key = `${checkoutId} ${paymentIntentId}`;
  const before = finishing.get(key);
  const mine = (before ?? Promise.resolve()).then(
    () =>
      finishNow(
        db,
        store,
        checkoutId,
        paymentIntentId,
        before ? { ...options, attempt: undefined } : options,
      ),
    () => finishNow(db, store, checkoutId, paymentIntentId, { ...options, attempt: undefined }),
  );
  finishing.set(key, mine);
  const forget = () => {
    if (finishing.get(key) === mine) finishing.delete(key);
  };
  mine.then(forget, forget);
  return mine;
};

const finishNow = async (
  db: Db,
  store: Store,
  checkoutId: string,
  paymentIntentId: string,
  {
    now = new Date(),
    rail = stripeCardRail,
    method,
    attempt: read,
    withCheckout = false,
    spendApproved = false,
    cryptoGroupId,
  }: FinishOptions = {},
): Promise<FinishedPayment> => {
  /** The receipt's card columns, or null when the card is not known. */
  const cardDetails = async (): Promise<{ cardBrand: string; cardLast4: string } | null> => {
    const known = typeof method === "function" ? await method() : method;
    return known ? { cardBrand: known.brand, cardLast4: known.last4 } : null;
  };
  const isCard = rail.id === RAIL_HANDLER_IDS.card;
  const refund = (reason: string) =>
    refundSupersededPayment(db, store, { checkoutId, providerRef: paymentIntentId, rail, reason });
  let attempt = read?.providerRef === paymentIntentId ? read : await findAttempt(paymentIntentId);
  if (attempt?.state === "refunded" || attempt?.state === "refunding") {
    if (attempt.state === "refunding" && !attempt.isCurrent)
      return refund("an interrupted refund was finished");
    if (attempt.state === "refunded") return { result: "ignored", reason: "the payment was refunded" };
  }
  // The order's lookup and the two writes of a success go through the driver adapter (lib/config/sql.ts): a card
  // completion sends them every time. A current card attempt whose card is known without asking the provider (a
  // completion's own charge) needs nothing decided between them, so they are one statement: the attempt and the
  // card-payment record are marked succeeded only when no order exists, as the three statements did in turn (a
  // late finisher of a placed order writes nothing; a webhook asks the provider for the card only when it writes).
  const together = isCard && attempt?.isCurrent === true && typeof method !== "function" ? attempt : null;
  let order: { id: string; paymentRef: string | null } | undefined;
  /** A crypto payment's checkout as read with its order: its stored totals and coupon. */
  let stored: StoredTotal | null = null;
  let recorded: number | undefined;
  /** Rows the success's write below changed: 1 means the attempt is now succeeded (nothing to read back). */
  let succeeded: number | undefined;
  if (together) {
    const card = await cardDetails();
    const now = new Date();
    const [row] = await query<{ orderId: string | null; paymentRef: string | null; recorded: number }>(sql`
      WITH placed AS (SELECT id, payment_ref FROM orders WHERE checkout_id = ${checkoutId}),
      paid_attempt AS (
        UPDATE payment_attempts
        SET state = 'succeeded', card_brand = COALESCE(${card?.cardBrand ?? null}, card_brand),
            card_last4 = COALESCE(${card?.cardLast4 ?? null}, card_last4), updated_at = ${now}
        WHERE id = ${together.id} AND state NOT IN ('refunding', 'refunded') AND NOT EXISTS (SELECT FROM placed)
        RETURNING id),
      paid_record AS (
        UPDATE card_payments SET status = 'succeeded', payment_intent_id = ${paymentIntentId}, updated_at = ${now}
        WHERE checkout_id = ${checkoutId} AND store_id = ${store.id} AND status NOT IN ('refunded', 'refunding')
          AND NOT EXISTS (SELECT FROM placed)
        RETURNING checkout_id)
      SELECT (SELECT id FROM placed) AS "orderId", (SELECT payment_ref FROM placed) AS "paymentRef",
             CAST((SELECT count(*) FROM paid_record) AS int) AS recorded`);
    order = row?.orderId ? { id: row.orderId, paymentRef: row.paymentRef } : undefined;
    recorded = row?.recorded;
  } else if (isCard) {
    [order] = await query<{ id: string; paymentRef: string | null }>(
      sql`SELECT id, payment_ref AS "paymentRef" FROM orders WHERE checkout_id = ${checkoutId}`,
    );
  } else {
    // a crypto payment is held to the checkout's stored total below: read with the order, in one statement
    const [row] = await query<{ orderId: string | null; paymentRef: string | null } & StoredTotal>(sql`
      SELECT o.id AS "orderId", o.payment_ref AS "paymentRef", c.totals, c.coupon_grant_id AS "couponGrantId"
      FROM (VALUES (CAST(${checkoutId} AS text))) AS k (id)
      LEFT JOIN checkout_sessions c ON c.id = k.id
      LEFT JOIN orders o ON o.checkout_id = k.id`);
    order = row?.orderId ? { id: row.orderId, paymentRef: row.paymentRef } : undefined;
    stored = row ? { totals: row.totals, couponGrantId: row.couponGrantId } : null;
  }
  if (order) {
    if (order.paymentRef === paymentIntentId) return { result: "order_placed", orderId: order.id };
    return refund(`the order ${order.id} was already paid with ${order.paymentRef ?? "another payment"}`);
  }
  if (attempt && !attempt.isCurrent && !isCard) {
    // a crypto payment for a replaced prepare that landed (the buyer signed the earlier bytes) pays a checkout that
    // has no order yet when it covers the total (B12): it becomes current in place of the unpaid newer prepare,
    // which, if it ever lands too, is then the extra payment
    attempt = (await promoteLandedAttempt(db, attempt)) ?? attempt;
  }
  if (attempt && !attempt.isCurrent) return refund("the attempt was superseded by a newer one");
  if (!isCard && attempt) {
    // a prepared payment pays the total it was prepared for: the checkout may have changed since (a crypto
    // prepare does not hold the session), and an order is never placed for less than its total
    // (a service coupon on the checkout covers its part of the total: the payable to the merchant, B16)
    const { total, coupon } = await liveTotalAndCouponOf(db, checkoutId, stored);
    if (total !== null && attempt.amount + coupon < total) {
      return refund(
        `it paid ${attempt.amount} but the checkout now totals ${total} (minor units, ${attempt.currency})${coupon ? `, ${coupon} of it a service coupon` : ""}`,
      );
    }
  }
  if (!attempt) {
    // never recorded (the process died right after the provider answered): it becomes the current attempt only
    // if no other attempt is current; otherwise it is an extra payment
    const current = await db.paymentAttempt.findFirst({ where: { checkoutId, isCurrent: true } });
    if (current && current.providerRef !== paymentIntentId) {
      return refund("the attempt was superseded by a newer one");
    }
    const checkout = await db.checkoutSession.findUnique({
      where: { id: checkoutId },
      select: { currency: true, totals: true },
    });
    if (checkout) {
      await recordAttempt(db, {
        checkoutId,
        storeId: store.id,
        rail: rail.id,
        providerRef: paymentIntentId,
        amount:
          (checkout.totals as { type: string; amount: number }[] | null)?.find((t) => t.type === "total")
            ?.amount ?? 0,
        currency: checkout.currency,
        state: "succeeded",
      });
      const card = await cardDetails();
      if (card) await db.paymentAttempt.updateMany({ where: { providerRef: paymentIntentId }, data: card });
    }
  } else if (!together) {
    const card = await cardDetails();
    succeeded = await execute(sql`
      UPDATE payment_attempts
      SET state = 'succeeded', card_brand = COALESCE(${card?.cardBrand ?? null}, card_brand),
          card_last4 = COALESCE(${card?.cardLast4 ?? null}, card_last4), updated_at = ${new Date()}
      WHERE id = ${attempt.id} AND state NOT IN ('refunding', 'refunded', 'awaiting_approval')`);
  }
  if (isCard) {
    // record the provider's state (and the PaymentIntent id, when it was never recorded) unless a refund is
    // written; the payment is read only when the write found none to update
    const count =
      recorded ??
      (await execute(sql`
        UPDATE card_payments SET status = 'succeeded', payment_intent_id = ${paymentIntentId},
            updated_at = ${new Date()}
        WHERE checkout_id = ${checkoutId} AND store_id = ${store.id} AND status NOT IN ('refunded', 'refunding')`));
    if (count === 0) {
      // a refund of the current payment that was interrupted (crash between the provider and our record) is
      // finished, never ordered
      const current = await db.cardPayment.findFirst({ where: { checkoutId, storeId: store.id } });
      if (current?.status === "refunding") {
        await refundUnplacedCardPayment(
          db,
          store,
          checkoutId,
          current.paymentIntentId ?? paymentIntentId,
          rail,
        );
        return { result: "refunded", reason: "an interrupted refund was finished" };
      }
      return { result: "ignored", reason: "the payment was refunded" };
    }
  } else {
    const settled = succeeded === 1 ? null : await findAttempt(paymentIntentId);
    if (settled?.state === "refunding") {
      await refundUnplacedCardPayment(db, store, checkoutId, paymentIntentId, rail);
      return { result: "refunded", reason: "an interrupted refund was finished" };
    }
    if (settled?.state === "refunded") return { result: "ignored", reason: "the payment was refunded" };
  }
  try {
    // a share of a combined crypto payment debits its part of the group's one reservation
    const share = isCard
      ? null
      : cryptoGroupId !== undefined
        ? { groupId: cryptoGroupId }
        : await db.cryptoPayment.findUnique({
            where: { preparedDigest: paymentIntentId },
            select: { groupId: true },
          });
    const placeInput = {
      checkoutId,
      storeId: store.id,
      store,
      noOrderSeen: true,
      handlerId: rail.id,
      paymentRef: paymentIntentId,
      now,
      spendGroupId: share?.groupId ?? null,
      withCheckout,
    };
    let placed;
    try {
      placed = await placeOrderRetrying(db, placeInput);
    } catch (error) {
      if (!(error instanceof SpendNotReserved)) throw error;
      // DECISIONS B20: a buyer's purchase without a live reservation (none was taken, it expired, a webhook or the
      // sweep found the payment): reserved now, under the allowance's lock and every limit, or not placed at all
      const refused = await reserveOrRefuse(db, store, error, now, spendApproved);
      if (refused && spendApproved) {
        // approved by the buyer and no allowance of theirs to record it on: theirs, placed as they said
        placed = await placeOrderRetrying(db, { ...placeInput, spendApproved: true });
      } else if (refused) {
        if (isCard) {
          await refundUnplacedCardPayment(db, store, checkoutId, paymentIntentId, rail);
          return { result: "refunded", reason: refused.message, cause: refused };
        }
        await awaitApproval(db, store, checkoutId, paymentIntentId, now);
        return { result: "awaiting_approval", reason: refused.message, cause: refused };
      } else {
        placed = await placeOrderRetrying(db, placeInput);
      }
    }
    if (!isCard) {
      // an approved (or, since, covered) payment that waited for the buyer is now the order's
      await execute(sql`
        UPDATE payment_attempts SET state = 'succeeded', updated_at = ${new Date()}
        WHERE provider_ref = ${paymentIntentId} AND state = 'awaiting_approval'`);
    }
    // a racing finisher placed the order with another payment first: this one is the extra charge
    if (placed.paymentRef !== paymentIntentId) {
      return refund(`the order ${placed.id} was already paid with ${placed.paymentRef ?? "another payment"}`);
    }
    return { result: "order_placed", orderId: placed.id, checkout: placed.completedCheckout };
  } catch (error) {
    if (error instanceof SpendNotReserved) {
      // the reservation just taken lapsed before the order (it lives an hour): the next finisher tries again
      throw new AppError(
        "conflict",
        `Checkout ${checkoutId}'s reservation lapsed while placing its order: retry`,
      );
    }
    const canceled =
      error instanceof AppError &&
      error.code === "checkout_not_modifiable" &&
      (await db.checkoutSession.findUnique({ where: { id: checkoutId }, select: { status: true } }))
        ?.status === "canceled";
    if (!(error instanceof AppError) || !(error.code === "out_of_stock" || canceled)) throw error;
    await refundUnplacedCardPayment(db, store, checkoutId, paymentIntentId, rail);
    return { result: "refunded", reason: error.message, cause: error };
  }
};
