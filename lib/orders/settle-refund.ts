import "server-only";

import { getDb, type Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import type { Order, OrderAdjustment, Prisma } from "@/lib/generated/prisma/client";
import { creditSpend } from "@/lib/mandates/spend-ledger";
import { railFor } from "@/lib/payments/rails";
import { UCP_VERSION } from "@/lib/ucp/version";
import { appendOrderEvent } from "@/lib/webhooks/append-order-event";

import { ORDER_INCLUDE, orderToWire, type OrderRecord } from "./to-wire";

// Money going back to the buyer (issue #7: cancellations and refunds). A cancellation or refund is first written
// as a `pending` adjustment in the transaction that reserves the amount (cancel-order.ts, refund-order.ts), then
// paid back through the rail that charged, with the adjustment id as the provider idempotency key, then marked
// `completed` (or `failed` when the provider definitely refused) with an order event. A crash or a provider
// outage between the two leaves the adjustment pending; settlePendingRefunds (the webhook worker's sweep and
// `admin settle-refunds`) finishes it with the same key, so the buyer is never paid back twice.

/**
 * The amount the rail captured for the order (0 when nothing was paid): the total less what a service coupon
 * funded (DECISIONS B16), so refunds never exceed what the buyer paid on the rail.
 */
export const paidMinor = (order: Pick<Order, "paymentRef" | "totals" | "serviceCouponMinor">): number =>
  order.paymentRef
    ? ((order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount ?? 0) -
      order.serviceCouponMinor
    : 0;

/** Money already returned or on its way back (pending and completed adjustments). */
export const refundedMinor = (adjustments: Pick<OrderAdjustment, "status" | "refundMinor">[]): number =>
  adjustments.filter((a) => a.status !== "failed").reduce((sum, a) => sum + a.refundMinor, 0);

/** Locks the order row for the rest of the transaction (serialises money changes of one order). */
export const lockOrder = async (
  tx: Prisma.TransactionClient,
  storeId: string,
  orderId: string,
): Promise<OrderRecord> => {
  const locked = await tx.order.updateMany({
    where: { id: orderId, storeId },
    data: { updatedAt: new Date() },
  });
  if (locked.count !== 1) {
    throw new AppError("not_found", `No order "${orderId}" in this store`, { path: "$.order_id" });
  }
  return tx.order.findUniqueOrThrow({ where: { id: orderId }, include: ORDER_INCLUDE });
};

/** Refusal when the rail that charged the order cannot pay back yet. */
export const assertRefundableRail = (order: Pick<Order, "paymentRef" | "handlerId">): void => {
  if (order.paymentRef && !railFor(order.handlerId ?? "")) {
    throw new AppError(
      "rail_not_available",
      `Payments on ${order.handlerId ?? "this rail"} cannot be refunded yet`,
    );
  }
};

/**
 * Pays back a pending adjustment through the rail and records the outcome with an order event. Concurrent
 * settlements of one adjustment send the same provider key and only one of them writes the outcome.
 * @throws AppError payment_provider_error (transient: the adjustment stays pending for the next settlement)
 */
export const settleRefund = async (db: Db, adjustmentId: string): Promise<OrderRecord> => {
  const adjustment = await db.orderAdjustment.findUniqueOrThrow({
    where: { id: adjustmentId },
    include: { order: { include: { store: true } } },
  });
  const { order } = adjustment;
  if (adjustment.status === "pending") {
    const rail = railFor(order.handlerId ?? "");
    if (!rail || !order.paymentRef) throw new AppError("rail_not_available", "This order cannot be refunded");
    let outcome;
    try {
      outcome = await rail.refund(
        order.store,
        order.paymentRef,
        `acs-${adjustment.id}`,
        adjustment.refundMinor,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new AppError(
        "payment_provider_error",
        `${message} — the refund stays pending and is retried (admin settle-refunds)`,
      );
    }
    await db.$transaction(async (tx) => {
      const done = await tx.orderAdjustment.updateMany({
        where: { id: adjustment.id, status: "pending" },
        data:
          outcome.kind === "succeeded"
            ? { status: "completed", refundRef: outcome.refundRef }
            : { status: "failed", failure: outcome.reason },
      });
      if (done.count !== 1) return; // a concurrent settlement recorded it
      // DECISIONS B6: money paid back to the buyer is given back to their allowance, with the refund's record
      if (outcome.kind === "succeeded") {
        await creditSpend(tx, {
          orderId: order.id,
          adjustmentId: adjustment.id,
          originAmount: adjustment.refundMinor,
          now: new Date(),
        });
      }
      const current = await lockOrder(tx, order.storeId, order.id);
      const fullyRefunded = refundedMinor(current.adjustments ?? []) >= paidMinor(current);
      const updated = await tx.order.update({
        where: { id: order.id },
        data: {
          status:
            outcome.kind === "succeeded" && fullyRefunded && current.status !== "canceled"
              ? "refunded"
              : current.status,
        },
        include: ORDER_INCLUDE,
      });
      await appendOrderEvent(tx, {
        storeId: order.storeId,
        orderId: order.id,
        kind: outcome.kind === "succeeded" ? "order.refunded" : "order.updated",
        payload: orderToWire(updated, {
          store: order.store,
          baseUrl: getBaseUrl(),
          ucpVersion: UCP_VERSION,
        }),
      });
    });
  }
  return db.order.findUniqueOrThrow({ where: { id: order.id }, include: ORDER_INCLUDE });
};

export type SettlementReport = { adjustmentId: string; orderId: string; status: string; error?: string };

/** Settles every pending refund (of one store when `storeId` is given), oldest first, at most `limit`. */
export const settlePendingRefunds = async (
  scope: { storeId?: string; limit?: number } = {},
): Promise<SettlementReport[]> => {
  const db = await getDb();
  const pending = await db.orderAdjustment.findMany({
    where: { status: "pending", ...(scope.storeId ? { order: { storeId: scope.storeId } } : {}) },
    orderBy: { occurredAt: "asc" },
    take: scope.limit ?? 50,
    select: { id: true, orderId: true },
  });
  const report: SettlementReport[] = [];
  for (const { id, orderId } of pending) {
    try {
      const order = await settleRefund(db, id);
      const status = order.adjustments?.find((a) => a.id === id)?.status ?? "pending";
      report.push({ adjustmentId: id, orderId, status });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.push({ adjustmentId: id, orderId, status: "pending", error: message });
    }
  }
  return report;
};
