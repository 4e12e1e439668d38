import { successEnvelope } from "@/lib/core/envelope";
import type {
  Order,
  OrderAdjustment,
  OrderFulfillmentEvent,
  OrderLineItem,
  OrderRequest,
  Store,
} from "@/lib/generated/prisma/client";
import { storeEndpoint } from "@/lib/stores/store-endpoint";

// Order → UCP wire shape (order.json, CONTRACT §10): the full current-state snapshot. Line statuses are derived
// from quantities (total 0 → removed, fulfilled = total → fulfilled, fulfilled > 0 → partial, else processing).
// Money after the order (cancellations, refunds) shows as adjustments with negative totals.

/** The order's permalink: its REST resource under the store endpoint (no merchant order page yet). */
export const orderPermalink = (store: Pick<Store, "slug">, baseUrl: string, orderId: string): string =>
  `${storeEndpoint(store, baseUrl)}/orders/${orderId}`;

export type OrderFulfillmentSnapshot = {
  destination: Record<string, string> | null;
  option: { id: string; title: string } | null;
};

const lineStatus = (total: number, fulfilled: number) =>
  total === 0 ? "removed" : fulfilled >= total ? "fulfilled" : fulfilled > 0 ? "partial" : "processing";

/** What every order read includes: lines, fulfilment events and adjustments, each in order. */
export const ORDER_INCLUDE = {
  lineItems: { orderBy: { position: "asc" } },
  fulfillmentEvents: { orderBy: { occurredAt: "asc" } },
  adjustments: { orderBy: { occurredAt: "asc" } },
  requests: { orderBy: { createdAt: "asc" } },
} as const;

export type OrderRecord = Order & {
  lineItems: OrderLineItem[];
  fulfillmentEvents?: OrderFulfillmentEvent[];
  adjustments?: OrderAdjustment[];
  requests?: OrderRequest[];
};

const fulfillmentEventToWire = (e: OrderFulfillmentEvent) => ({
  id: e.id,
  occurred_at: e.occurredAt.toISOString(),
  type: e.type,
  line_items: e.lineItems as { id: string; quantity: number }[],
  ...(e.trackingNumber ? { tracking_number: e.trackingNumber } : {}),
  ...(e.trackingUrl ? { tracking_url: e.trackingUrl } : {}),
  ...(e.carrier ? { carrier: e.carrier } : {}),
  ...(e.description ? { description: e.description } : {}),
});

const adjustmentToWire = (a: OrderAdjustment) => ({
  id: a.id,
  type: a.type,
  occurred_at: a.occurredAt.toISOString(),
  status: a.status,
  ...(a.lineItems ? { line_items: a.lineItems as { id: string; quantity: number }[] } : {}),
  totals: a.totals as { type: string; amount: number }[],
  ...(a.description ? { description: a.description } : {}),
});

/** An agent's cancellation or refund request and what became of it (our field beside UCP's order fields). */
export const orderRequestToWire = (r: OrderRequest) => ({
  id: r.id,
  type: r.type,
  status: r.status,
  ...(r.type === "refund" || r.status === "approved" ? { amount: r.amountMinor } : {}),
  reason: r.reason,
  created_at: r.createdAt.toISOString(),
  ...(r.decidedAt ? { decided_at: r.decidedAt.toISOString() } : {}),
  ...(r.declineReason ? { decline_reason: r.declineReason } : {}),
  ...(r.adjustmentId ? { adjustment_id: r.adjustmentId } : {}),
});

export const orderToWire = (
  order: OrderRecord,
  { store, baseUrl, ucpVersion }: { store: Store; baseUrl: string; ucpVersion: string },
) => {
  const snapshot = (order.fulfillment ?? { destination: null, option: null }) as OrderFulfillmentSnapshot;
  const lines = order.lineItems.map((l) => {
    const amount = l.priceMinor * l.quantity;
    return {
      id: l.id,
      item: { id: l.variantId, title: l.title, price: l.priceMinor },
      // a cancellation takes units off (total); totals stay what was bought, the refund is an adjustment
      quantity: {
        original: l.quantity,
        total: l.quantity - l.quantityCanceled,
        fulfilled: l.quantityFulfilled,
      },
      totals: [
        { type: "subtotal", amount },
        { type: "total", amount },
      ],
      status: lineStatus(l.quantity - l.quantityCanceled, l.quantityFulfilled),
    };
  });
  const { id: _destinationId, ...destination } = snapshot.destination ?? {};
  return {
    ucp: successEnvelope(["dev.ucp.shopping.order"], {}, ucpVersion),
    id: order.id,
    checkout_id: order.checkoutId,
    permalink_url: orderPermalink(store, baseUrl, order.id),
    line_items: lines,
    fulfillment: {
      // what is still to be delivered (lines a cancellation removed are no longer expected)
      expectations:
        snapshot.destination && lines.some((l) => l.quantity.total > 0)
          ? [
              {
                id: "exp_1",
                line_items: lines
                  .filter((l) => l.quantity.total > 0)
                  .map((l) => ({ id: l.id, quantity: l.quantity.total })),
                method_type: "shipping",
                destination,
                ...(snapshot.option ? { description: snapshot.option.title } : {}),
              },
            ]
          : [],
      events: (order.fulfillmentEvents ?? []).map(fulfillmentEventToWire),
    },
    ...(order.adjustments?.length ? { adjustments: order.adjustments.map(adjustmentToWire) } : {}),
    // the agent's cancellation and refund requests (lib/orders/order-requests.ts), oldest first
    ...(order.requests?.length ? { requests: order.requests.map(orderRequestToWire) } : {}),
    currency: order.currency,
    totals: order.totals,
    // who funded the total (DECISIONS B16): the buyer on the rail, the service with a coupon (owed to the merchant)
    ...(order.serviceCouponMinor > 0
      ? {
          funding: [
            {
              source: order.handlerId ?? "none",
              funded_by: "buyer",
              amount:
                ((order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")
                  ?.amount ?? 0) - order.serviceCouponMinor,
            },
            { source: "service_coupon", funded_by: "service", amount: order.serviceCouponMinor },
          ],
        }
      : {}),
  };
};
