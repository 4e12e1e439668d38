import "server-only";

import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { UCP_VERSION } from "@/lib/ucp/version";
import { appendOrderEvent, type OrderEventKind } from "@/lib/webhooks/append-order-event";

import { lockOrder } from "./settle-refund";
import { ORDER_INCLUDE, orderToWire, type OrderRecord } from "./to-wire";

// The merchant's side of an order's life: fulfilment events, appended (UCP order fulfillment.events is
// append-only). `shipped` (with carrier and tracking) marks line quantities fulfilled — all lines fully shipped
// moves the order to `fulfilled`; `delivered` moves a fulfilled order to `delivered`; other UCP event types
// (in_transit, failed_attempt, …) are recorded as they are. Every change appends an order event in the same
// transaction, whose payload is the full order snapshot after the change. Cancellations and refunds move money
// and arrive with the payment rails.

export type FulfillmentInput = {
  type: string;
  /** Order line ids and quantities; `shipped` defaults to every remaining unit. */
  lineItems?: { id: string; quantity: number }[];
  carrier?: string;
  trackingNumber?: string;
  trackingUrl?: string;
  description?: string;
};

const TYPE = /^[a-z][a-z_]{1,39}$/;

/**
 * @throws AppError store_not_found, not_found, invalid_request (type, lines, quantities, tracking URL),
 *   conflict (canceled/refunded order, delivered before fulfilled)
 */
export const recordFulfillmentEvent = async (
  storeSlug: string,
  orderId: string,
  input: FulfillmentInput,
  now = new Date(),
): Promise<OrderRecord> => {
  const store = await getStoreOrThrow(storeSlug);
  if (!TYPE.test(input.type)) {
    throw new AppError("invalid_request", "type must be a UCP fulfilment event type such as shipped", {
      path: "$.type",
    });
  }
  if (input.trackingUrl !== undefined && !/^https:\/\/\S+$/.test(input.trackingUrl)) {
    throw new AppError("invalid_request", "tracking_url must be an https URL", { path: "$.tracking_url" });
  }
  const db = await getDb();
  return db.$transaction(async (tx) => {
    // locked like a cancellation or a refund, so shipping and canceling one order never both happen
    const order = await lockOrder(tx, store.id, orderId);
    if (order.status === "canceled" || order.status === "refunded") {
      throw new AppError("conflict", `Order ${order.id} is ${order.status}`);
    }
    const byId = new Map(order.lineItems.map((l) => [l.id, l]));
    const shipped = input.type === "shipped";
    const lines =
      input.lineItems ??
      (shipped
        ? order.lineItems
            .filter((l) => l.quantity > l.quantityFulfilled)
            .map((l) => ({ id: l.id, quantity: l.quantity - l.quantityFulfilled }))
        : order.lineItems.map((l) => ({ id: l.id, quantity: l.quantity })));
    for (const [i, line] of lines.entries()) {
      const known = byId.get(line.id);
      if (!known)
        throw new AppError("invalid_request", `No line ${line.id} in this order`, {
          path: `$.line_items[${i}].id`,
        });
      if (!Number.isInteger(line.quantity) || line.quantity < 1) {
        throw new AppError("invalid_request", "quantity must be a positive integer", {
          path: `$.line_items[${i}].quantity`,
        });
      }
      if (shipped && known.quantityFulfilled + line.quantity > known.quantity) {
        throw new AppError(
          "invalid_request",
          `Line ${line.id} has only ${known.quantity - known.quantityFulfilled} unit(s) left to ship`,
          {
            path: `$.line_items[${i}].quantity`,
          },
        );
      }
    }
    if (shipped && lines.length === 0)
      throw new AppError("conflict", `Order ${order.id} is already fully shipped`);
    if (input.type === "delivered" && order.status !== "fulfilled" && order.status !== "delivered") {
      throw new AppError(
        "conflict",
        `Order ${order.id} is ${order.status}: ship it before it can be delivered`,
      );
    }

    if (shipped) {
      for (const line of lines) {
        await tx.orderLineItem.update({
          where: { id: line.id },
          data: { quantityFulfilled: { increment: line.quantity } },
        });
      }
      // an agent's cancellation request still waiting can no longer be granted: it is answered now
      await tx.orderRequest.updateMany({
        where: { orderId: order.id, status: "pending", type: "cancellation" },
        data: {
          status: "declined",
          decidedAt: now,
          decidedBy: "merchant",
          declineReason: "Shipped before the cancellation was decided: ask for a refund instead",
        },
      });
    }
    await tx.orderFulfillmentEvent.create({
      data: {
        id: newId("fulfillmentEvent"),
        orderId: order.id,
        type: input.type,
        occurredAt: now,
        lineItems: lines,
        carrier: input.carrier ?? null,
        trackingNumber: input.trackingNumber ?? null,
        trackingUrl: input.trackingUrl ?? null,
        description: input.description ?? null,
      },
    });
    const lineRows = await tx.orderLineItem.findMany({ where: { orderId: order.id } });
    const allShipped = lineRows.every((l) => l.quantityFulfilled >= l.quantity);
    const status =
      input.type === "delivered"
        ? "delivered"
        : shipped && allShipped && order.status !== "delivered"
          ? "fulfilled"
          : order.status;
    const kind: OrderEventKind =
      input.type === "delivered" ? "order.delivered" : shipped ? "order.fulfilled" : "order.updated";
    const updated = await tx.order.update({
      where: { id: order.id },
      data: { status },
      include: ORDER_INCLUDE,
    });
    await appendOrderEvent(tx, {
      storeId: store.id,
      orderId: order.id,
      kind,
      payload: orderToWire(updated, { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION }),
    });
    return updated;
  });
};
