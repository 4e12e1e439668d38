import "server-only";

import { getAgentProfile } from "@/lib/agents/agent-profile";
import { getDb } from "@/lib/config/db";
import { getBaseUrl, getEnv } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import type { WebhookDelivery, WebhookEndpoint } from "@/lib/generated/prisma/client";
import { guardedFetch, OutboundError } from "@/lib/outbound/guarded-fetch";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";
import { currentSigningKey, type SigningKeyRow } from "@/lib/stores/rotate-signing-key";
import { storeEndpoint } from "@/lib/stores/store-endpoint";

import { declaredWebhookUrl } from "./fan-out";
import {
  CLAIM_MS,
  DELIVERY_TIMEOUT_MS,
  ENDPOINT_DISABLE_AFTER_MS,
  ENDPOINT_DISABLE_MIN_FAILURES,
  RESPONSE_SNIPPET_BYTES,
  retryDelayMs,
} from "./schedule";
import { signWebhook } from "./sign-webhook";

// The delivery worker's step: claim due deliveries, POST each once (signed, through the outbound guard), log
// the attempt, and schedule the next one (schedule.ts). At least once: a delivery is marked delivered only
// after a 2xx; a worker that dies mid-attempt leaves a claim that lapses after CLAIM_MS (or the operator's
// WEBHOOK_CLAIM_TTL_MS), and the delivery goes out again with the same Webhook-Id, timestamp and bytes. Per
// order and endpoint, a later event waits while an earlier one is still pending, so receivers see an order's
// snapshots in order.

/** Per-attempt timeout and claim lease: the published defaults unless the operator set them (lib/config/env.ts). */
const deliveryTimeoutMs = (): number => getEnv().WEBHOOK_DELIVERY_TIMEOUT_MS ?? DELIVERY_TIMEOUT_MS;
const claimMs = (): number => {
  const env = getEnv();
  if (env.WEBHOOK_CLAIM_TTL_MS !== undefined) return env.WEBHOOK_CLAIM_TTL_MS;
  return env.WEBHOOK_DELIVERY_TIMEOUT_MS === undefined
    ? CLAIM_MS
    : deliveryTimeoutMs() + (CLAIM_MS - DELIVERY_TIMEOUT_MS);
};

export type AttemptOutcome = { deliveryId: string; ok: boolean; status: number | null; error: string | null };

type Target = { url: string } | { error: string };

const resolveTarget = async (endpoint: WebhookEndpoint, allowPrivate: boolean): Promise<Target> => {
  if (endpoint.target === "store") return { url: endpoint.url };
  try {
    const profile = await getAgentProfile(endpoint.url, { allowPrivate });
    const url = declaredWebhookUrl(profile);
    return url ? { url } : { error: `${endpoint.url} declares no order webhook_url` };
  } catch (error) {
    return { error: `platform profile: ${error instanceof Error ? error.message : String(error)}` };
  }
};

/** The store's current signing key (lib/stores: the newest unretired one; rotation keeps the old one published). */
const signingKeyOf = async (storeId: string): Promise<SigningKeyRow | null> =>
  currentSigningKey(await getDb(), { storeId });

const isDue = async (delivery: WebhookDelivery): Promise<boolean> => {
  const db = await getDb();
  const earlier = await db.webhookDelivery.findFirst({
    where: {
      endpointId: delivery.endpointId,
      orderId: delivery.orderId,
      sequence: { lt: delivery.sequence },
      state: "pending",
    },
    select: { id: true },
  });
  return earlier === null;
};

const claim = async (id: string, now: Date): Promise<boolean> => {
  const db = await getDb();
  const { count } = await db.webhookDelivery.updateMany({
    where: { id, state: "pending", OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }] },
    data: { lockedUntil: new Date(now.getTime() + claimMs()) },
  });
  return count === 1;
};

/** One attempt of a claimed delivery; records it and schedules what follows. */
export const attemptDelivery = async (delivery: WebhookDelivery, now: Date): Promise<AttemptOutcome> => {
  const db = await getDb();
  const endpoint = await db.webhookEndpoint.findUniqueOrThrow({ where: { id: delivery.endpointId } });
  const store = await db.store.findUniqueOrThrow({ where: { id: delivery.storeId } });
  const allowPrivate = outboundAllowsPrivate(store);
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  let snippet = "";
  let targetUrl = "";

  const target = await resolveTarget(endpoint, allowPrivate);
  const key = await signingKeyOf(store.id);
  if ("error" in target) error = target.error;
  else if (!key) error = "the store has no signing key";
  else {
    targetUrl = target.url;
    try {
      const headers = await signWebhook(
        {
          url: target.url,
          webhookId: delivery.id,
          timestamp: delivery.timestamp,
          body: delivery.body,
          storeProfileUrl: `${storeEndpoint(store, getBaseUrl())}/.well-known/ucp`,
        },
        key,
        new Date(), // the signature's `created` is wall-clock time, whatever clock schedules the attempt
      );
      const response = await guardedFetch(target.url, {
        method: "POST",
        body: delivery.body,
        headers,
        allowPrivate,
        maxBytes: RESPONSE_SNIPPET_BYTES,
        overflow: "truncate",
        timeoutMs: deliveryTimeoutMs(),
      });
      status = response.status;
      snippet = response.body;
      if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (thrown) {
      error = thrown instanceof OutboundError ? `${thrown.reason}: ${thrown.message}` : String(thrown);
    }
  }
  const ok = error === null;
  const latencyMs = Math.round(performance.now() - started);
  const attempts = delivery.attempts + 1;
  const delay = ok ? null : retryDelayMs(attempts);

  await db.$transaction([
    db.webhookAttempt.create({
      data: {
        id: newId("webhookAttempt"),
        deliveryId: delivery.id,
        startedAt: now,
        targetUrl,
        status,
        error,
        latencyMs,
        responseSnippet: snippet,
      },
    }),
    db.webhookDelivery.update({
      where: { id: delivery.id },
      data: ok
        ? { state: "delivered", attempts, deliveredAt: now, lockedUntil: null }
        : {
            state: delay === null ? "dead" : "pending",
            attempts,
            lockedUntil: null,
            nextAttemptAt: new Date(now.getTime() + (delay ?? 0)),
          },
    }),
  ]);
  await recordEndpointHealth(endpoint, ok, now);
  return { deliveryId: delivery.id, ok, status, error };
};

const recordEndpointHealth = async (endpoint: WebhookEndpoint, ok: boolean, now: Date): Promise<void> => {
  const db = await getDb();
  if (ok) {
    if (endpoint.consecutiveFailures > 0) {
      await db.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: { consecutiveFailures: 0, failingSince: null },
      });
    }
    return;
  }
  const failures = endpoint.consecutiveFailures + 1;
  const failingSince = endpoint.failingSince ?? now;
  const sustained =
    failures >= ENDPOINT_DISABLE_MIN_FAILURES &&
    now.getTime() - failingSince.getTime() >= ENDPOINT_DISABLE_AFTER_MS;
  await db.webhookEndpoint.update({
    where: { id: endpoint.id },
    data: {
      consecutiveFailures: failures,
      failingSince,
      ...(sustained
        ? {
            disabledAt: now,
            disabledReason: `${failures} failed attempts in a row since ${failingSince.toISOString()}`,
          }
        : {}),
    },
  });
};

/** Claims and attempts up to `limit` due deliveries (of one store when `storeId` is given). */
export const runDueDeliveries = async (
  now: Date,
  { storeId, limit = 20 }: { storeId?: string; limit?: number } = {},
): Promise<AttemptOutcome[]> => {
  const db = await getDb();
  const candidates = await db.webhookDelivery.findMany({
    where: {
      ...(storeId ? { storeId } : {}),
      state: "pending",
      nextAttemptAt: { lte: now },
      OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }],
      endpoint: { disabledAt: null },
    },
    orderBy: [{ nextAttemptAt: "asc" }, { sequence: "asc" }],
    take: limit * 3,
  });
  const outcomes: AttemptOutcome[] = [];
  for (const delivery of candidates) {
    if (outcomes.length >= limit) break;
    if (!(await isDue(delivery))) continue;
    if (!(await claim(delivery.id, now))) continue;
    outcomes.push(await attemptDelivery(delivery, now));
  }
  return outcomes;
};
