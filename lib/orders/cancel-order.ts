import "server-only";

import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Prisma, Store } from "@/lib/generated/prisma/client";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { UCP_VERSION } from "@/lib/ucp/version";
import { appendOrderEvent } from "@/lib/webhooks/append-order-event";

import { approveRequest, type RequestAnswer } from "./request-answer";
import { assertRefundableRail, lockOrder, paidMinor, refundedMinor, settleRefund } from "./settle-refund";
import { ORDER_INCLUDE, orderToWire, type OrderRecord } from "./to-wire";

// The merchant cancels an order that has not shipped: in one transaction every remaining unit is put
// back in stock, the lines drop to quantity 0 (UCP line status `removed`), a `cancellation` adjustment records
// the lines taken off and the money owed back (pending), the order becomes `canceled` and `order.canceled` is
// appended. The money then goes back through the rail that charged (settle-refund.ts: `order.refunded` once the
// provider confirms). Cancelling a canceled order returns it (and settles a refund still pending).

export type CancelOrderInput = { reason?: string };

/**
 * Cancels the order `lockOrder` just locked, inside the caller's transaction: stock back, lines to 0, the
 * cancellation adjustment (pending while money is owed back), coupon payables void, `order.canceled`. Returns the
 * adjustment to pay back after commit (null when nothing is owed). The merchant's cancel and an agent's approved
 * cancellation request both come here.
 * @throws AppError conflict (refunded, units shipped), rail_not_available
 */
export const cancelLockedOrder = async (
  tx: Prisma.TransactionClient,
  store: Store,
  order: OrderRecord,
  description: string,
  now: Date,
  answering?: RequestAnswer,
): Promise<{ adjustmentId: string; owed: number }> => {
  if (order.status === "refunded") {
    throw new AppError("conflict", `Order ${order.id} is already refunded: it cannot be canceled`);
  }
  if (order.lineItems.some((l) => l.quantityFulfilled > 0)) {
    throw new AppError(
      "conflict",
      `Order ${order.id} has shipped units: it cannot be canceled; refund it instead`,
    );
  }
  assertRefundableRail(order);
  const owed = Math.max(0, paidMinor(order) - refundedMinor(order.adjustments ?? []));
  const taken = order.lineItems
    .map((l) => ({ line: l, units: l.quantity - l.quantityCanceled }))
    .filter((t) => t.units > 0);
  for (const { line, units } of taken) {
    // back in stock (a variant deleted since is simply not restocked)
    await tx.variant.updateMany({
      where: { id: line.variantId, storeId: store.id },
      data: { inventory: { increment: units } },
    });
    await tx.orderLineItem.update({
      where: { id: line.id },
      data: { quantityCanceled: line.quantity },
    });
  }
  const adjustmentId = newId("orderAdjustment");
  await tx.orderAdjustment.create({
    data: {
      id: adjustmentId,
      orderId: order.id,
      type: "cancellation",
      status: owed > 0 ? "pending" : "completed",
      occurredAt: now,
      lineItems: taken.map(({ line, units }) => ({ id: line.id, quantity: -units })),
      totals: [{ type: "total", amount: -owed }],
      refundMinor: owed,
      description,
    },
  });
  // nothing was delivered: the service owes the merchant nothing for a coupon on it (DECISIONS B16); the buyer's
  // rail part is what comes back (paidMinor), the coupon stays spent
  await tx.couponPayable.updateMany({
    where: { orderId: order.id, status: "open" },
    data: { status: "void" },
  });
  if (answering) await approveRequest(tx, answering, { amountMinor: owed, adjustmentId, now });
  const updated = await tx.order.update({
    where: { id: order.id },
    data: { status: "canceled" },
    include: ORDER_INCLUDE,
  });
  await appendOrderEvent(tx, {
    storeId: store.id,
    orderId: order.id,
    kind: "order.canceled",
    payload: orderToWire(updated, { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION }),
  });
  return { adjustmentId, owed };
};

/**
 * @throws AppError store_not_found, not_found, invalid_request (reason too long), conflict (units already
 *   shipped: refund instead; already refunded), rail_not_available, payment_provider_error (the order is
 *   canceled and its refund stays pending)
 */
export const cancelOrder = async (
  storeSlug: string,
  orderId: string,
  input: CancelOrderInput = {},
  now = new Date(),
): Promise<OrderRecord> => {
  if (input.reason !== undefined && (input.reason.length === 0 || input.reason.length > 500)) {
    throw new AppError("invalid_request", "reason must be 1–500 characters", { path: "$.reason" });
  }
  const store = await getStoreOrThrow(storeSlug);
  const db = await getDb();
  const pendingId = await db.$transaction(async (tx) => {
    const order = await lockOrder(tx, store.id, orderId);
    if (order.status === "canceled") {
      return order.adjustments?.find((a) => a.type === "cancellation" && a.status === "pending")?.id ?? null;
    }
    // the merchant's cancel also answers an agent's cancellation request that was waiting for it
    const waiting = order.requests?.find((r) => r.status === "pending" && r.type === "cancellation");
    const { adjustmentId, owed } = await cancelLockedOrder(
      tx,
      store,
      order,
      input.reason ?? "Canceled by the merchant",
      now,
      waiting ? { requestId: waiting.id, decidedBy: "merchant" } : undefined,
    );
    return owed > 0 ? adjustmentId : null;
  });
  if (pendingId) return settleRefund(db, pendingId);
  return db.order.findUniqueOrThrow({ where: { id: orderId }, include: ORDER_INCLUDE });
};
