import "server-only";

import { newId } from "@/lib/config/ids";
import type { Prisma } from "@/lib/generated/prisma/client";

// Appends an order event inside the caller's transaction (the same one that changed the order), so an order
// change and its event commit or roll back together: the transactional outbox. Delivery happens later.

export const ORDER_EVENT_KINDS = [
  "order.placed",
  "order.paid",
  "order.fulfilled",
  "order.delivered",
  "order.canceled",
  "order.refunded",
  /** An agent asked to cancel or refund and the store's policy left it to the merchant; or the merchant declined. */
  "order.cancellation_requested",
  "order.refund_requested",
  "order.request_declined",
  /** Any other change worth a snapshot (e.g. an in-transit fulfilment event). */
  "order.updated",
] as const;
export type OrderEventKind = (typeof ORDER_EVENT_KINDS)[number];

export const appendOrderEvent = async (
  tx: Prisma.TransactionClient,
  event: {
    storeId: string;
    orderId: string;
    kind: OrderEventKind;
    payload: Record<string, unknown>;
  },
): Promise<{ id: string; sequence: number }> => {
  const sequence =
    ((
      await tx.orderEvent.findFirst({
        where: { orderId: event.orderId },
        orderBy: { sequence: "desc" },
        select: { sequence: true },
      })
    )?.sequence ?? 0) + 1;
  const id = newId("orderEvent");
  await tx.orderEvent.create({
    data: {
      id,
      storeId: event.storeId,
      orderId: event.orderId,
      sequence,
      kind: event.kind,
      payload: event.payload as Prisma.InputJsonValue,
    },
  });
  return { id, sequence };
};

/**
 * The first events of an order written in the same statement or transaction (the order's own, on the driver
 * adapter: see lib/orders/place-order.ts), numbered 1, 2, … in the order given (the unique (order, sequence) index
 * would refuse a wrong guess, rolling the transaction back): the INSERT's text, its values bound through `param`
 * (lib/config/sql.ts `paramsAfter`), so it can be one of the order statement's CTEs.
 */
export const newOrderEventsInsert = (
  input: {
    storeId: string;
    orderId: string;
    events: readonly { kind: OrderEventKind; payload: Record<string, unknown> }[];
  },
  param: (value: unknown) => string,
): string => {
  if (input.events.length === 0) throw new Error("newOrderEventsInsert: no events");
  const createdAt = new Date();
  const rows = input.events.map((event, i) => {
    const payload = `CAST(${param(JSON.stringify(event.payload))} AS jsonb)`;
    return `(${param(newId("orderEvent"))}, ${param(input.storeId)}, ${param(input.orderId)}, ${param(i + 1)}, ${param(event.kind)}, ${payload}, ${param(createdAt)})`;
  });
  return `INSERT INTO order_events (id, store_id, order_id, sequence, kind, payload, created_at) VALUES ${rows.join(", ")}`;
};
