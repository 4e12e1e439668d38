import "server-only";

import type { Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { placeOrder } from "@/lib/orders/place-order";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import type { PaymentRail } from "../rail";
import { stripeCardRail } from "./stripe-adapter";

// Finishes a card payment that succeeded at the provider outside a completion call: an inbound Stripe webhook or
// the reconciliation sweep. placeOrder is idempotent (a checkout that has an order returns it), so a late, repeated
// or concurrent finisher never places a second order, and nothing here charges. When the order cannot be placed
// (the last units were sold meanwhile, or the checkout was canceled) the money is given back with the same
// refund key the completion uses (`acs-refund-<pi>`: one refund whoever gets there first), and a refunded
// payment is never turned into an order later.

export type FinishedCardPayment =
  | { result: "order_placed"; orderId: string }
  | { result: "refunded"; reason: string }
  | { result: "ignored"; reason: string };

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
  await rail.refund(store, paymentIntentId, `acs-refund-${paymentIntentId}`);
  // a refunded payment is never finished: the next completion is a new attempt with a new key
  await db.cardPayment.updateMany({
    where: { checkoutId, status: "refunding" },
    data: { status: "refunded", attempt: { increment: 1 } },
  });
  await db.checkoutSession.updateMany({
    where: { id: checkoutId, status: { in: ["complete_in_progress", "requires_escalation"] } },
    data: { status: "ready_for_complete", continueToken: null, version: { increment: 1 } },
  });
};

export const finishSucceededCardPayment = async (
  db: Db,
  store: Store,
  checkoutId: string,
  paymentIntentId: string,
  { now = new Date(), rail = stripeCardRail }: { now?: Date; rail?: PaymentRail } = {},
): Promise<FinishedCardPayment> => {
  // a refund that was interrupted (crash between the provider and our record) is finished, never ordered
  const current = await db.cardPayment.findFirst({ where: { checkoutId, storeId: store.id } });
  if (current?.status === "refunding") {
    await refundUnplacedCardPayment(db, store, checkoutId, current.paymentIntentId ?? paymentIntentId, rail);
    return { result: "refunded", reason: "an interrupted refund was finished" };
  }
  // record the provider's state (and the PaymentIntent id, when it was never recorded) unless refunded
  const { count } = await db.cardPayment.updateMany({
    where: { checkoutId, storeId: store.id, status: { notIn: ["refunded", "refunding"] } },
    data: { status: "succeeded", paymentIntentId },
  });
  if (count === 0) return { result: "ignored", reason: "the payment was refunded" };
  try {
    const order = await placeOrder(db, {
      checkoutId,
      storeId: store.id,
      handlerId: RAIL_HANDLER_IDS.card,
      paymentRef: paymentIntentId,
      now,
    });
    return { result: "order_placed", orderId: order.id };
  } catch (error) {
    const canceled =
      error instanceof AppError &&
      error.code === "checkout_not_modifiable" &&
      (await db.checkoutSession.findUnique({ where: { id: checkoutId }, select: { status: true } }))
        ?.status === "canceled";
    if (!(error instanceof AppError) || !(error.code === "out_of_stock" || canceled)) throw error;
    await refundUnplacedCardPayment(db, store, checkoutId, paymentIntentId, rail);
    return { result: "refunded", reason: error.message };
  }
};
