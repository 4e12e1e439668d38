import "server-only";

import { getAgentProfile } from "@/lib/agents/agent-profile";
import { getDb } from "@/lib/config/db";
import { getBaseUrl, getEnv } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { execute, query, sql, statementOf } from "@/lib/config/sql";
import type { WebhookDelivery, WebhookEndpoint } from "@/lib/generated/prisma/client";
import { guardedFetch, OutboundError } from "@/lib/outbound/guarded-fetch";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";
import { currentSigningKey, type SigningKeyRow } from "@/lib/stores/rotate-signing-key";
import { storeEndpoint } from "@/lib/stores/store-endpoint";
import { isOlderVersion } from "@/lib/ucp/versions";
import { orderWebhookBodyDown } from "@/lib/ucp/versions/order";

import { declaredWebhookUrl } from "./fan-out";
import {
  CLAIM_MS,
  DELIVERY_TIMEOUT_MS,
  ENDPOINT_DISABLE_AFTER_MS,
  ENDPOINT_DISABLE_MIN_FAILURES,
  RESPONSE_SNIPPET_BYTES,
  retryDelayMs,
} from "./schedule";
import { detachedRequestSignature, signWebhook } from "./sign-webhook";

// The delivery worker's step: claim due deliveries (several in one statement), POST each once in turn (signed,
// through the outbound guard), then log the claimed batch's attempts and schedule what follows each (schedule.ts)
// in one statement. At least once: a delivery is marked delivered only after a 2xx; a worker that dies mid-batch
// leaves claims that lapse after
// CLAIM_MS (or the operator's WEBHOOK_CLAIM_TTL_MS), and the delivery goes out again with the same Webhook-Id,
// timestamp and bytes. Per order and endpoint, a later event waits while an earlier one is still pending, so
// receivers see an order's snapshots in order.

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

/** What an attempt needs of its delivery (the row as the claim returns it). */
export type DeliveryToAttempt = Pick<
  WebhookDelivery,
  "id" | "endpointId" | "storeId" | "body" | "timestamp" | "attempts"
>;
type EndpointState = Pick<WebhookEndpoint, "id" | "target" | "url" | "consecutiveFailures" | "failingSince">;
/**
 * `orderVersion`: the UCP version the delivery's order was placed at (its checkout's), read with the claim so an
 * attempt costs no extra statement; a platform target gets its webhooks in that version (docs/ucp-versions.md
 * §1.3, §3.15), the store's own endpoint always in ours.
 */
type AttemptContext = {
  endpoint: EndpointState;
  store: { slug: string; mode: string };
  orderVersion?: string | null;
};

const resolveTarget = async (endpoint: EndpointState, allowPrivate: boolean): Promise<Target> => {
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

// The endpoint and store columns an attempt reads, as both statements below return them.
const CONTEXT_COLUMNS = `w.target::text AS target, w.url, w.consecutive_failures AS "consecutiveFailures",
  w.failing_since AS "failingSince", s.slug, s.mode::text AS mode,
  (SELECT c.ucp_version FROM orders o JOIN checkout_sessions c ON c.id = o.checkout_id WHERE o.id = d.order_id)
    AS "orderVersion"`;

type ContextRow = {
  target: string;
  url: string;
  consecutiveFailures: number;
  failingSince: Date | null;
  slug: string;
  mode: string;
  orderVersion: string | null;
};

const contextOf = (endpointId: string, row: ContextRow): AttemptContext => ({
  endpoint: {
    id: endpointId,
    target: row.target as WebhookEndpoint["target"],
    url: row.url,
    consecutiveFailures: row.consecutiveFailures,
    failingSince: row.failingSince,
  },
  store: { slug: row.slug, mode: row.mode },
  orderVersion: row.orderVersion,
});

type Claimed = { delivery: DeliveryToAttempt; context: AttemptContext };

/**
 * The claim of several deliveries in one statement, with what their attempts need: only the worker whose update
 * matched holds a delivery, and only while no earlier event of its order is still pending for its endpoint
 * (receivers see an order's snapshots in order), so a later event of an order is claimed by a later call, once the
 * earlier one is delivered. In `ids`' order.
 */
const claimAll = async (ids: string[], now: Date, lockedUntil: Date): Promise<Claimed[]> => {
  const rows = await query<DeliveryToAttempt & ContextRow>(
    statementOf(
      `UPDATE webhook_deliveries d SET locked_until = $1
       FROM webhook_endpoints w, stores s
       WHERE d.id = ANY($2::text[]) AND d.state = 'pending' AND (d.locked_until IS NULL OR d.locked_until <= $3)
         AND w.id = d.endpoint_id AND s.id = d.store_id
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.endpoint_id = d.endpoint_id AND e.order_id = d.order_id
                           AND e.sequence < d.sequence AND e.state = 'pending')
       RETURNING d.id, d.endpoint_id AS "endpointId", d.store_id AS "storeId", d.body, d.timestamp, d.attempts,
                 ${CONTEXT_COLUMNS}`,
      [lockedUntil, ids, now],
    ),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { endpointId, storeId, body, timestamp, attempts } = row;
    return [
      {
        delivery: { id, endpointId, storeId, body, timestamp, attempts },
        context: contextOf(endpointId, row),
      },
    ];
  });
};

/** Gives back claims not attempted (the lease would not cover their attempt): due again at once, for anyone. */
const release = async (ids: string[], lockedUntil: Date): Promise<void> => {
  if (ids.length === 0) return;
  await execute(
    statementOf(
      `UPDATE webhook_deliveries SET locked_until = NULL
       WHERE id = ANY($1::text[]) AND state = 'pending' AND locked_until = $2`,
      [ids, lockedUntil],
    ),
  );
};

const readContext = async (delivery: DeliveryToAttempt): Promise<AttemptContext> => {
  const [row] = await query<ContextRow>(
    statementOf(
      `SELECT ${CONTEXT_COLUMNS} FROM webhook_endpoints w CROSS JOIN stores s
       LEFT JOIN webhook_deliveries d ON d.id = $3
       WHERE w.id = $1 AND s.id = $2`,
      [delivery.endpointId, delivery.storeId, delivery.id],
    ),
  );
  if (!row) throw new Error(`Webhook delivery ${delivery.id}: its endpoint or store is gone`);
  return contextOf(delivery.endpointId, row);
};

/** What one attempt did, to be recorded (`recordAttempts`). */
type AttemptDone = {
  outcome: AttemptOutcome;
  endpoint: EndpointState;
  /** The attempt's scheduling clock. */
  now: Date;
  row: {
    id: string;
    delivery_id: string;
    started_at: string;
    target_url: string;
    status: number | null;
    error: string | null;
    latency_ms: number;
    response_snippet: string;
    state: "delivered" | "dead" | "pending";
    attempts: number;
    delivered_at: string | null;
    next_attempt_at: string | null;
  };
};

/** One attempt of a claimed delivery: sent, not yet recorded. */
const sendAttempt = async (
  delivery: DeliveryToAttempt,
  now: Date,
  context: AttemptContext | undefined,
  timeoutMs: number,
): Promise<AttemptDone> => {
  const { endpoint, store, orderVersion } = context ?? (await readContext(delivery));
  const allowPrivate = outboundAllowsPrivate(store);
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  let snippet = "";
  let targetUrl = "";

  const target = await resolveTarget(endpoint, allowPrivate);
  const key = await signingKeyOf(delivery.storeId);
  if ("error" in target) error = target.error;
  else if (!key) error = "the store has no signing key";
  else {
    targetUrl = target.url;
    try {
      const older =
        endpoint.target === "platform" && orderVersion && isOlderVersion(orderVersion) ? orderVersion : null;
      // at an older version the body is that version's (pure over the stored one: a retry sends the same bytes)
      const body = older
        ? orderWebhookBodyDown(older, delivery.body, {
            id: delivery.id,
            createdTime: new Date(delivery.timestamp * 1000),
          })
        : delivery.body;
      const headers = await signWebhook(
        {
          url: target.url,
          webhookId: delivery.id,
          timestamp: delivery.timestamp,
          body,
          storeProfileUrl: `${storeEndpoint(store, getBaseUrl())}/.well-known/ucp`,
        },
        key,
        new Date(), // the signature's `created` is wall-clock time, whatever clock schedules the attempt
      );
      const response = await guardedFetch(target.url, {
        method: "POST",
        body,
        headers: older ? { ...headers, "request-signature": detachedRequestSignature(body, key) } : headers,
        allowPrivate,
        maxBytes: RESPONSE_SNIPPET_BYTES,
        overflow: "truncate",
        timeoutMs,
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

  return {
    outcome: { deliveryId: delivery.id, ok, status, error },
    endpoint,
    now,
    row: {
      id: newId("webhookAttempt"),
      delivery_id: delivery.id,
      started_at: now.toISOString(),
      target_url: targetUrl,
      status,
      error,
      latency_ms: latencyMs,
      response_snippet: snippet,
      state: ok ? "delivered" : delay === null ? "dead" : "pending",
      attempts,
      delivered_at: ok ? now.toISOString() : null,
      next_attempt_at: ok ? null : new Date(now.getTime() + (delay ?? 0)).toISOString(),
    },
  };
};

/**
 * The attempts' log lines and their deliveries' next states, for any number of attempts in one statement (the
 * rows travel as one JSON array; timestamps as UTC text, as the adapters write Dates), then each endpoint's health.
 */
const recordAttempts = async (done: readonly AttemptDone[]): Promise<void> => {
  if (done.length === 0) return;
  await execute(sql`
    WITH a AS (
      SELECT * FROM jsonb_to_recordset(CAST(${JSON.stringify(done.map((d) => d.row))} AS jsonb))
        AS a(id text, delivery_id text, started_at timestamp(3), target_url text, status int, error text,
             latency_ms int, response_snippet text, state text, attempts int, delivered_at timestamp(3),
             next_attempt_at timestamp(3))),
    logged AS (
      INSERT INTO webhook_attempts (id, delivery_id, started_at, target_url, status, error, latency_ms,
        response_snippet)
      SELECT id, delivery_id, started_at, target_url, status, error, latency_ms, response_snippet FROM a)
    UPDATE webhook_deliveries d
    SET state = CAST(a.state AS webhook_delivery_state), attempts = a.attempts, locked_until = NULL,
        delivered_at = COALESCE(a.delivered_at, d.delivered_at),
        next_attempt_at = COALESCE(a.next_attempt_at, d.next_attempt_at)
    FROM a WHERE d.id = a.delivery_id`);
  for (const { endpoint, outcome, now } of done) await recordEndpointHealth(endpoint, outcome.ok, now);
};

/** One attempt of a claimed delivery; records it and schedules what follows. */
export const attemptDelivery = async (
  delivery: DeliveryToAttempt,
  now: Date,
  context?: AttemptContext,
  timeoutMs = deliveryTimeoutMs(),
): Promise<AttemptOutcome> => {
  const done = await sendAttempt(delivery, now, context, timeoutMs);
  await recordAttempts([done]);
  return done.outcome;
};

const recordEndpointHealth = async (endpoint: EndpointState, ok: boolean, now: Date): Promise<void> => {
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
  {
    storeId,
    limit = 20,
    lease = claimMs(),
    timeoutMs = deliveryTimeoutMs(),
  }: {
    storeId?: string;
    limit?: number;
    /** The claim lease and an attempt's timeout (the settings by default; tests give their own). */
    lease?: number;
    timeoutMs?: number;
  } = {},
): Promise<AttemptOutcome[]> => {
  const candidates = await query<{ id: string }>(
    statementOf(
      `SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
       WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until <= $1)
         AND w.disabled_at IS NULL${storeId === undefined ? "" : " AND d.store_id = $3"}
       ORDER BY d.next_attempt_at, d.sequence
       LIMIT $2`,
      storeId === undefined ? [now, limit * 3] : [now, limit * 3, storeId],
    ),
  );
  const outcomes: AttemptOutcome[] = [];
  // Claimed a batch at a time (one statement), attempted one after another. Each attempt is recorded as it ends,
  // as before; an attempt starts only while the lease still covers its whole timeout, so no other worker can take
  // a delivery this one is still sending; claims the lease no longer covers are given back.
  let remaining = candidates.map((c) => c.id);
  while (outcomes.length < limit && remaining.length > 0) {
    const lockedUntil = new Date(now.getTime() + lease);
    const claimedAt = performance.now();
    const batch = remaining.slice(0, limit - outcomes.length);
    const claimed = await claimAll(batch, now, lockedUntil);
    // none of these can be claimed now (taken elsewhere, or behind an earlier event still pending): the next ones
    if (claimed.length === 0) {
      remaining = remaining.slice(batch.length);
      continue;
    }
    // what was not claimed stays first in line: an event behind one delivered just now may be claimed next
    const taken = new Set(claimed.map((c) => c.delivery.id));
    remaining = remaining.filter((id) => !taken.has(id));
    // a claimed batch's attempts are recorded together, in one statement, as soon as its last one ends (each
    // ended within the lease, so no other worker took one meanwhile); a worker that dies before leaves their
    // claims to lapse, and they go out again with the same Webhook-Id, timestamp and bytes (at least once)
    const done: AttemptDone[] = [];
    for (const [i, { delivery, context }] of claimed.entries()) {
      if (performance.now() - claimedAt + timeoutMs >= lease) {
        await recordAttempts(done);
        await release(
          claimed.slice(i).map((c) => c.delivery.id),
          lockedUntil,
        );
        return [...outcomes, ...done.map((d) => d.outcome)];
      }
      done.push(await sendAttempt(delivery, now, context, timeoutMs));
    }
    await recordAttempts(done);
    outcomes.push(...done.map((d) => d.outcome));
  }
  return outcomes;
};
