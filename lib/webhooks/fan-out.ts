import "server-only";

import { randomUUID } from "node:crypto";

import { getAgentProfile } from "@/lib/agents/agent-profile";
import { getDb, isUniqueViolation } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { execute, query, sql, statementOf } from "@/lib/config/sql";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";

// Turns appended order events into deliveries, outside the order's transaction (the outbox relay). Targets:
// 1. the store's configured webhook URL — blank or unset disables webhooks silently: no delivery, no log;
// 2. the originating platform (the agent profile that created the checkout), when its profile's
//    dev.ucp.shopping.order capability declares a webhook_url. An unreachable profile still gets a delivery:
//    each attempt re-reads the profile, so a platform that is down now is retried on the schedule.
// Every event of an order goes to the same endpoints, in sequence order (the worker enforces the order).

const ORDER_CAPABILITY = "dev.ucp.shopping.order";

/** The webhook_url a platform profile declares in its order capability, or null. */
export const declaredWebhookUrl = (profile: {
  ucp: { capabilities?: Record<string, unknown> };
}): string | null => {
  const entries = profile.ucp.capabilities?.[ORDER_CAPABILITY];
  if (!Array.isArray(entries)) return null;
  for (const entry of entries) {
    const url = (entry as { config?: { webhook_url?: unknown } }).config?.webhook_url;
    if (typeof url === "string" && url.trim() !== "") return url;
  }
  return null;
};

const platformWanted = async (profileUrl: string, store: { mode: string }): Promise<boolean> => {
  try {
    const profile = await getAgentProfile(profileUrl, { allowPrivate: outboundAllowsPrivate(store) });
    return declaredWebhookUrl(profile) !== null;
  } catch {
    return true; // unknown yet: deliver, and let each attempt resolve (and log) the profile
  }
};

// A target's first event records its endpoint (one upsert, then the pending events' read finds it). Prisma runs this
// upsert (a compound key) as a read then an insert, so two workers fanning out a new target's first events at once
// both insert: the one refused by the unique key reads the row the other made.
const endpointFor = async (
  store: { id: string },
  target: "store" | "platform",
  url: string,
): Promise<string> => {
  const db = await getDb();
  const where = { storeId_target_url: { storeId: store.id, target, url } };
  try {
    const endpoint = await db.webhookEndpoint.upsert({
      where,
      create: {
        id: newId("webhookEndpoint"),
        storeId: store.id,
        target,
        url,
        profileUrl: target === "platform" ? url : null,
      },
      update: {},
    });
    return endpoint.id;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return (await db.webhookEndpoint.findUniqueOrThrow({ where, select: { id: true } })).id;
  }
};

type PendingEvent = {
  id: string;
  storeId: string;
  orderId: string;
  sequence: number;
  payload: unknown;
  createdAt: Date;
  storeMode: string | null;
  webhookUrl: string | null;
  agentProfile: string | null;
  /** The endpoint rows these targets already have (null: none yet, or the URL needs trimming first). */
  storeEndpointId: string | null;
  platformEndpointId: string | null;
};

// The pending events with what deciding their targets needs (the store's webhook URL and mode, the checkout's
// agent profile, the endpoints already recorded for both), in feed order: one statement per poll.
const pendingEvents = (limit: number, storeId: string | undefined) =>
  query<PendingEvent>(
    statementOf(
      `SELECT e.id, e.store_id AS "storeId", e.order_id AS "orderId", e.sequence, e.payload,
              e.created_at AS "createdAt", s.mode::text AS "storeMode", s.webhook_url AS "webhookUrl",
              c.agent_profile AS "agentProfile",
              (SELECT w.id FROM webhook_endpoints w WHERE w.store_id = e.store_id AND w.target = 'store'
                 AND w.url = s.webhook_url) AS "storeEndpointId",
              (SELECT w.id FROM webhook_endpoints w WHERE w.store_id = e.store_id AND w.target = 'platform'
                 AND w.url = c.agent_profile) AS "platformEndpointId"
       FROM order_events e
       LEFT JOIN stores s ON s.id = e.store_id
       LEFT JOIN orders o ON o.id = e.order_id
       LEFT JOIN checkout_sessions c ON c.id = o.checkout_id
       WHERE e.fanned_out_at IS NULL${storeId === undefined ? "" : " AND e.store_id = $2"}
       ORDER BY e.position
       LIMIT $1`,
      storeId === undefined ? [limit] : [limit, storeId],
    ),
  );

/** Fans out up to `limit` events (of one store when `storeId` is given); returns how many were processed. */
export const fanOutEvents = async (
  now: Date,
  { storeId, limit = 50 }: { storeId?: string; limit?: number } = {},
) => {
  const events = await pendingEvents(limit, storeId);
  if (events.length === 0) return 0;
  const deliveries: {
    id: string;
    event_id: string;
    endpoint_id: string;
    store_id: string;
    order_id: string;
    sequence: number;
    body: string;
    timestamp: number;
  }[] = [];
  for (const event of events) {
    const store = event.storeMode === null ? null : { id: event.storeId, mode: event.storeMode };
    const endpointIds: string[] = [];
    const storeUrl = event.webhookUrl?.trim();
    if (store && storeUrl) {
      endpointIds.push(
        storeUrl === event.webhookUrl && event.storeEndpointId
          ? event.storeEndpointId
          : await endpointFor(store, "store", storeUrl),
      );
    }
    const profileUrl = event.agentProfile;
    if (store && profileUrl && (await platformWanted(profileUrl, store))) {
      endpointIds.push(event.platformEndpointId ?? (await endpointFor(store, "platform", profileUrl)));
    }
    const body = JSON.stringify(event.payload);
    const timestamp = Math.floor(event.createdAt.getTime() / 1000);
    for (const endpointId of endpointIds) {
      deliveries.push({
        id: randomUUID(),
        event_id: event.id,
        endpoint_id: endpointId,
        store_id: event.storeId,
        order_id: event.orderId,
        sequence: event.sequence,
        body,
        timestamp,
      });
    }
  }
  // the poll's deliveries and its events' marks in one statement: all of them or none (a delivery already there
  // for an event and endpoint, from another worker's fan-out of the same event, is kept as it is)
  await execute(sql`
    WITH created AS (
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, store_id, order_id, sequence, body, timestamp,
        next_attempt_at, created_at)
      SELECT d.id, d.event_id, d.endpoint_id, d.store_id, d.order_id, d.sequence, d.body, d.timestamp,
        ${now}, ${new Date()}
      FROM jsonb_to_recordset(CAST(${JSON.stringify(deliveries)} AS jsonb))
        AS d(id text, event_id text, endpoint_id text, store_id text, order_id text, sequence int, body text,
             timestamp int)
      ON CONFLICT DO NOTHING)
    UPDATE order_events SET fanned_out_at = ${now} WHERE id = ANY(${events.map((e) => e.id)}::text[])`);
  return events.length;
};
