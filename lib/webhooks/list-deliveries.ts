import "server-only";

import { getDb } from "@/lib/config/db";

// The delivery log of a store: each delivery (= Webhook-Id) with its target, state and every attempt (time,
// HTTP status or error, latency, response snippet), newest first. Shared by the admin CLI and the API. Two
// audiences: the merchant sees every delivery; a platform sees only the deliveries to its own webhook, with the
// status and timing of each attempt but never the body its receiver answered (a platform must not read the
// merchant's URL, its tokens or an internal service's reply through us).

export type DeliveryAudience = "merchant" | "platform";

export type DeliveryLogEntry = {
  webhook_id: string;
  order_id: string;
  event_id: string;
  /** What the delivery tells: its event's type (order.placed, order.paid, …). */
  event_type: string;
  sequence: number;
  target: "store" | "platform";
  endpoint: { id: string; url: string; disabled_at: string | null; disabled_reason: string | null };
  state: "pending" | "delivered" | "dead";
  next_attempt_at: string | null;
  attempts: {
    at: string;
    target_url: string;
    status: number | null;
    error: string | null;
    latency_ms: number;
    /** Merchant audience only. */
    response_snippet?: string;
  }[];
};

/** The log of a store; narrowed to one order, one delivery, or the orders one principal originated. */
export const listDeliveries = async (
  storeId: string,
  {
    orderId,
    deliveryId,
    principalId,
    audience = "merchant",
    limit = 50,
  }: {
    orderId?: string;
    deliveryId?: string;
    principalId?: string;
    audience?: DeliveryAudience;
    limit?: number;
  } = {},
): Promise<DeliveryLogEntry[]> => {
  const db = await getDb();
  const rows = await db.webhookDelivery.findMany({
    where: {
      storeId,
      ...(orderId ? { orderId } : {}),
      ...(deliveryId ? { id: deliveryId } : {}),
      ...(principalId ? { event: { order: { principalId } } } : {}),
      ...(audience === "platform" ? { endpoint: { target: "platform" as const } } : {}),
    },
    include: { endpoint: true, event: { select: { kind: true } }, log: { orderBy: { startedAt: "desc" } } },
    orderBy: [{ createdAt: "desc" }, { sequence: "desc" }],
    take: limit,
  });
  return rows.map((d) => ({
    webhook_id: d.id,
    order_id: d.orderId,
    event_id: d.eventId,
    event_type: d.event.kind,
    sequence: d.sequence,
    target: d.endpoint.target,
    endpoint: {
      id: d.endpoint.id,
      url: d.endpoint.url,
      disabled_at: d.endpoint.disabledAt?.toISOString() ?? null,
      disabled_reason: d.endpoint.disabledReason,
    },
    state: d.state,
    next_attempt_at: d.state === "pending" ? d.nextAttemptAt.toISOString() : null,
    attempts: d.log.map((a) => ({
      at: a.startedAt.toISOString(),
      target_url: a.targetUrl,
      status: a.status,
      error: a.error,
      latency_ms: a.latencyMs,
      ...(audience === "merchant" ? { response_snippet: a.responseSnippet } : {}),
    })),
  }));
};
