import "server-only";

import { randomUUID } from "node:crypto";

import { getAgentProfile } from "@/lib/agents/agent-profile";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";
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

const platformWanted = async (profileUrl: string, store: Store): Promise<boolean> => {
  try {
    const profile = await getAgentProfile(profileUrl, { allowPrivate: outboundAllowsPrivate(store) });
    return declaredWebhookUrl(profile) !== null;
  } catch {
    return true; // unknown yet: deliver, and let each attempt resolve (and log) the profile
  }
};

const endpointFor = async (store: Store, target: "store" | "platform", url: string): Promise<string> => {
  const db = await getDb();
  const endpoint = await db.webhookEndpoint.upsert({
    where: { storeId_target_url: { storeId: store.id, target, url } },
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
};

/** Fans out up to `limit` events (of one store when `storeId` is given); returns how many were processed. */
export const fanOutEvents = async (
  now: Date,
  { storeId, limit = 50 }: { storeId?: string; limit?: number } = {},
) => {
  const db = await getDb();
  const events = await db.orderEvent.findMany({
    where: { fannedOutAt: null, ...(storeId ? { storeId } : {}) },
    orderBy: { position: "asc" },
    take: limit,
  });
  for (const event of events) {
    const store = await db.store.findUnique({ where: { id: event.storeId } });
    const order = await db.order.findUnique({
      where: { id: event.orderId },
      select: { checkout: { select: { agentProfile: true } } },
    });
    const endpointIds: string[] = [];
    if (store?.webhookUrl?.trim())
      endpointIds.push(await endpointFor(store, "store", store.webhookUrl.trim()));
    const profileUrl = order?.checkout.agentProfile;
    if (store && profileUrl && (await platformWanted(profileUrl, store))) {
      endpointIds.push(await endpointFor(store, "platform", profileUrl));
    }
    const body = JSON.stringify(event.payload);
    const timestamp = Math.floor(event.createdAt.getTime() / 1000);
    await db.$transaction([
      db.webhookDelivery.createMany({
        data: endpointIds.map((endpointId) => ({
          id: randomUUID(),
          eventId: event.id,
          endpointId,
          storeId: event.storeId,
          orderId: event.orderId,
          sequence: event.sequence,
          body,
          timestamp,
          nextAttemptAt: now,
        })),
        skipDuplicates: true,
      }),
      db.orderEvent.update({ where: { id: event.id }, data: { fannedOutAt: now } }),
    ]);
  }
  return events.length;
};
