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

// The merchant refunds a paid order, in full or in part (issue #7; returns, goodwill). The amount is reserved in
// one transaction as a pending `refund` adjustment (at most what was paid minus what is already refunded or on
// its way back) with an `order.updated` event, then paid back through the rail (settle-refund.ts): the order is
// `refunded` once everything paid has gone back, with `order.refunded`. One refund at a time per order: while
// one is pending, another is refused, so a retried command can never pay back twice.

export type RefundOrderInput = {
  /** Minor units; default: everything not refunded yet. */
  amount?: number;
  reason?: string;
};

/**
 * What a refund of `order` may pay back now: `amount` (default: everything paid and not refunded yet), checked
 * against what is left. The merchant's refund and an agent's refund request (before it waits for the merchant)
 * check the same rules here. `path` names the amount in the caller's input.
 * @throws AppError conflict (nothing paid, a refund pending, fully refunded), invalid_request (above what is
 *   left), rail_not_available
 */
export const refundableAmount = (
  order: OrderRecord,
  amount: number | undefined,
  path = "$.amount",
): number => {
  const paid = paidMinor(order);
  if (paid === 0) throw new AppError("conflict", `Order ${order.id} has no payment to refund`);
  assertRefundableRail(order);
  const adjustments = order.adjustments ?? [];
  if (adjustments.some((a) => a.status === "pending")) {
    throw new AppError(
      "conflict",
      `Order ${order.id} has a refund in progress: wait for it (its order event says when it is paid back)`,
    );
  }
  const left = paid - refundedMinor(adjustments);
  if (left <= 0) throw new AppError("conflict", `Order ${order.id} is already fully refunded`);
  const wanted = amount ?? left;
  if (wanted > left) {
    throw new AppError(
      "invalid_request",
      `amount ${wanted} exceeds what can still be refunded (${left} ${order.currency} minor units)`,
      { path },
    );
  }
  return wanted;
};

/**
 * Reserves a refund of the order `lockOrder` just locked, inside the caller's transaction: a pending `refund`
 * adjustment of `amount` (default: everything not refunded yet) and `order.updated`. Returns the adjustment to pay
 * back after commit. The merchant's refund and an agent's approved refund request both come here.
 * @throws AppError as refundableAmount
 */
export const refundLockedOrder = async (
  tx: Prisma.TransactionClient,
  store: Store,
  order: OrderRecord,
  input: { amount?: number; description: string },
  now: Date,
  answering?: RequestAnswer,
): Promise<string> => {
  const amount = refundableAmount(order, input.amount);
  const id = newId("orderAdjustment");
  await tx.orderAdjustment.create({
    data: {
      id,
      orderId: order.id,
      type: "refund",
      status: "pending",
      occurredAt: now,
      totals: [{ type: "total", amount: -amount }],
      refundMinor: amount,
      description: input.description,
    },
  });
  if (answering) await approveRequest(tx, answering, { amountMinor: amount, adjustmentId: id, now });
  const updated = await tx.order.findUniqueOrThrow({ where: { id: order.id }, include: ORDER_INCLUDE });
  await appendOrderEvent(tx, {
    storeId: store.id,
    orderId: order.id,
    kind: "order.updated",
    payload: orderToWire(updated, { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION }),
  });
  return id;
};

/**
 * @throws AppError store_not_found, not_found, invalid_request (amount, reason), conflict (nothing was paid,
 *   already fully refunded, a refund still pending), rail_not_available, payment_provider_error (the refund
 *   stays pending and is retried)
 */
export const refundOrder = async (
  storeSlug: string,
  orderId: string,
  input: RefundOrderInput = {},
  now = new Date(),
): Promise<OrderRecord> => {
  if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount < 1)) {
    throw new AppError("invalid_request", "amount must be a positive integer in minor units", {
      path: "$.amount",
    });
  }
  if (input.reason !== undefined && (input.reason.length === 0 || input.reason.length > 500)) {
    throw new AppError("invalid_request", "reason must be 1–500 characters", { path: "$.reason" });
  }
  const store = await getStoreOrThrow(storeSlug);
  const db = await getDb();
  const adjustmentId = await db.$transaction(async (tx) => {
    const order = await lockOrder(tx, store.id, orderId);
    return refundLockedOrder(
      tx,
      store,
      order,
      { amount: input.amount, description: input.reason ?? "Refunded by the merchant" },
      now,
    );
  });
  return settleRefund(db, adjustmentId);
};
