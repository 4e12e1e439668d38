import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

import Stripe from "stripe";

import {
  SANDBOX_EVENT_TYPES,
  SANDBOX_PAYMENT_METHODS,
  SANDBOX_SECRET_KEY,
  SANDBOX_WEBHOOK_SECRET,
  type SandboxEventType,
} from "@/lib/payments/card/sandbox-client";

// The sandbox PSP (DECISIONS.md A/B4), the one test double of Stripe's API: a local HTTP server speaking the
// subset of the Stripe API the card adapter and Stripe.js call — POST /v1/payment_intents (create, optionally
// confirm), GET /v1/payment_intents/:id, POST /v1/payment_intents/:id/confirm, POST /v1/payment_intents/:id/cancel,
// POST /v1/refunds — with Stripe's Idempotency-Key semantics (same key + same params → the same response,
// replayed; different params → 400 idempotency_error) and Stripe's test payment methods and card numbers.
// Keys: any sk_test_… secret key (server, Bearer) and any pk_test_… publishable key (browser: `key` parameter,
// and only together with the PaymentIntent's client_secret, as Stripe.js calls), plus the extra keys a test
// names (`keys`) to stand in for a live account: PaymentIntents created with a key that is not sk_test_… are
// livemode. CORS is open, as Stripe's API is for Stripe.js.
// It is a test double of Stripe: test-mode stores, the embedded demo and the tests reach it through the
// official SDK's host/port/protocol options, exactly like the real API. A separate process for `npm start`
// (sandbox/stripe/main.ts), or a server inside a test process (stripeSandbox()); the product reaches it only over
// HTTP, at STRIPE_SANDBOX_URL. `/sandbox/3ds/:id` is the bank's 3-DS challenge at next_action.redirect_to_url:
// GET shows the challenge page, a browser's form POST answers it and returns the buyer to return_url with
// payment_intent, payment_intent_client_secret and redirect_status (as Stripe does); a POST with a secret key is
// the test-mode hosted page answering for the buyer (JSON answer).
// Faults (tests only, POST /sandbox/faults with a secret key): `cancel=unavailable` makes the next cancels answer
// 503, as a provider outage would, so the superseded-attempt path through the sweep can be exercised.
//
// Webhooks (issue #5 §6): POST/GET /v1/webhook_endpoints registers and lists endpoints (`url`,
// `enabled_events[]`, `metadata`; the returned `secret` is SANDBOX_WEBHOOK_SECRET). When a PaymentIntent reaches
// succeeded / requires_action / a failed payment — on create+confirm, confirm, or the 3-DS answer — the sandbox
// POSTs Stripe's Event object as JSON with a `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`
// header (signed afresh per attempt), retried on failure with a bounded backoff. Its one simplification: all
// test stores share one sandbox account, so to model "one Stripe account per store" a PaymentIntent's events go
// only to endpoints whose metadata.store equals the PaymentIntent's metadata.store.
// GET /v1/payment_intents/search supports Stripe's search query `metadata['<key>']:'<value>'` (reconciliation).

export { SANDBOX_EVENT_TYPES, SANDBOX_PAYMENT_METHODS, SANDBOX_SECRET_KEY, SANDBOX_WEBHOOK_SECRET };

/** How many recent events and deliveries the sandbox keeps for inspection (a long-running demo stays bounded). */
const KEEP_RECENT = 1_000;

/** Delay before each delivery attempt of one event to one endpoint: at most 4 attempts (a test double). */
export const SANDBOX_WEBHOOK_RETRY_DELAYS_MS = [0, 250, 1_000, 3_000] as const;

type PaymentIntent = {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_refunded: number;
  currency: string;
  status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "succeeded" | "canceled";
  payment_method: string | null;
  metadata: Record<string, string>;
  client_secret: string;
  livemode: boolean;
  created: number;
  next_action: {
    type: "redirect_to_url";
    redirect_to_url: { url: string; return_url: string | null };
  } | null;
  last_payment_error: { code: string; decline_code?: string; message: string } | null;
  return_url: string | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
};

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

export type SandboxWebhookEndpoint = {
  id: string;
  object: "webhook_endpoint";
  api_version: string | null;
  application: null;
  created: number;
  description: string | null;
  enabled_events: string[];
  livemode: false;
  metadata: Record<string, string>;
  secret: string;
  status: "enabled";
  url: string;
};

/** Stripe's Event object (https://docs.stripe.com/api/events/object), for PaymentIntents. */
export type SandboxEvent = {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: PaymentIntent };
  livemode: boolean;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: SandboxEventType;
};

/** One event sent to one endpoint, with every attempt (status, or the network error). */
export type SandboxDelivery = {
  eventId: string;
  type: SandboxEventType;
  endpointId: string;
  url: string;
  attempts: { status: number | null; error?: string }[];
  delivered: boolean;
};

/** Who caused a state change: the API request (id, Idempotency-Key), or nobody (the buyer's 3-DS answer). */
type RequestInfo = { id: string | null; idempotency_key: string | null };
/** An API request authenticated with a secret key. */
type ApiRequest = RequestInfo & { secretKey: string };

export type StripeSandbox = {
  url: string;
  host: string;
  port: number;
  protocol: "http";
  /** Every PaymentIntent by id (tests read charges from here). */
  paymentIntents: () => PaymentIntent[];
  /** Number of create/confirm requests that actually ran (replays excluded). */
  executed: () => number;
  /** Retrievals of one PaymentIntent by a server (GET /v1/payment_intents/:id with a secret key). */
  retrievals: (paymentIntentId: string) => number;
  /** The secret key a PaymentIntent was created with (which account's key the server used). */
  createdWith: (paymentIntentId: string) => string | undefined;
  /** Registered webhook endpoints, events generated and deliveries made (tests read them). */
  webhookEndpoints: () => SandboxWebhookEndpoint[];
  events: () => SandboxEvent[];
  deliveries: () => SandboxDelivery[];
  /** Resolves once every delivery under way (retries included) has finished. */
  webhooksSettled: () => Promise<void>;
  /** Turns sending on or off (events are still generated); e.g. the crash test, which tests other paths. */
  setWebhookDelivery: (on: boolean) => void;
  /** Confirmations that ran, by caller: the publishable key (Stripe.js in a browser) or a secret key (a server). */
  confirmations: () => { publishable: number; secret: number };
  /** Makes the next `count` cancel requests fail with 503 (a provider outage); 0 turns it off. */
  failCancels: (count: number) => void;
  close: () => Promise<void>;
};

export type SandboxOptions = {
  port?: number;
  /** Let the process exit while the server listens (tests); false for the standalone process. */
  unref?: boolean;
  /** Keys accepted besides sk_test_… / pk_test_…: a test's stand-in for a live account (sk_live_…, pk_live_…). */
  keys?: { secret?: readonly string[]; publishable?: readonly string[] };
};

/** The card behind each of Stripe's test payment methods (brand, last four digits of its documented number). */
const TEST_CARDS: Record<string, { brand: string; last4: string }> = {
  [SANDBOX_PAYMENT_METHODS.succeeds]: { brand: "visa", last4: "4242" },
  [SANDBOX_PAYMENT_METHODS.requires3ds]: { brand: "visa", last4: "3220" },
  [SANDBOX_PAYMENT_METHODS.declined]: { brand: "visa", last4: "0002" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444" },
};

/** Test payment methods that behave as another one: a second card that succeeds (two good cards racing). */
const BEHAVES_AS: Record<string, string> = { pm_card_mastercard: SANDBOX_PAYMENT_METHODS.succeeds };

/** Stripe's documented test card numbers (what a buyer types into Stripe.js) → the test payment method. */
const TEST_CARD_NUMBERS: Record<string, { method: string; last4: string }> = {
  "4242424242424242": { method: SANDBOX_PAYMENT_METHODS.succeeds, last4: "4242" },
  "4000000000003220": { method: SANDBOX_PAYMENT_METHODS.requires3ds, last4: "3220" },
  "4000002760003184": { method: SANDBOX_PAYMENT_METHODS.requires3ds, last4: "3184" },
  "4000000000000002": { method: SANDBOX_PAYMENT_METHODS.declined, last4: "0002" },
};

/** Stripe's cancelable PaymentIntent states (https://docs.stripe.com/api/payment_intents/cancel). */
const CANCELABLE = new Set<PaymentIntent["status"]>([
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
]);

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Stripe's `expand[]=payment_method` on a PaymentIntent answer: the id becomes the PaymentMethod object. */
const expandAnswer = (
  answer: Answer,
  params: Record<string, unknown>,
  cardOf: (paymentMethod: string) => { brand: string; last4: string } | undefined,
): Answer => {
  const expand = Object.values((params.expand as Record<string, string> | undefined) ?? {});
  const body = answer.body as { object?: string; payment_method?: unknown } | null;
  if (!expand.includes("payment_method") || body?.object !== "payment_intent") return answer;
  const id = body.payment_method;
  const card = typeof id === "string" ? cardOf(id) : undefined;
  if (!card) return answer;
  return {
    ...answer,
    body: { ...body, payment_method: { id, object: "payment_method", type: "card", card } },
  };
};

const parseForm = (raw: string): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const nested = /^(\w+)\[(\w*)\]$/.exec(key);
    if (nested) {
      const [, parent, child] = nested;
      const bucket = (out[parent!] ??= {}) as Record<string, string>;
      bucket[child || String(Object.keys(bucket).length)] = value;
    } else out[key] = value;
  }
  return out;
};

/** Stripe's documented webhook signature: `t=<unix>,v1=<hex HMAC-SHA256("<t>.<payload>", secret)>`. */
export const stripeSignatureHeader = (payload: string, secret: string, timestamp: number): string =>
  `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex")}`;

const error = (
  status: number,
  type: string,
  message: string,
  extra: Record<string, unknown> = {},
): Answer => ({
  status,
  body: { error: { type, message, ...extra } },
});

/** Starts a sandbox on 127.0.0.1 (port 0 = any free port); `unref` lets a test process exit around it. */
export const startStripeSandbox = async ({
  port: wanted = 0,
  unref = true,
  keys = {},
}: SandboxOptions = {}): Promise<StripeSandbox> => {
  const intents = new Map<string, PaymentIntent>();
  /** Payment methods made from a typed card number (Stripe.js): the test method they behave as, and the card. */
  const typedCards = new Map<string, { method: string; brand: string; last4: string }>();
  const cardOf = (pm: string) => TEST_CARDS[pm] ?? typedCards.get(pm);
  const confirmations = { publishable: 0, secret: 0 };
  let cancelFailures = 0;
  const idempotency = new Map<string, { params: string; answer: Answer }>();
  const endpoints = new Map<string, SandboxWebhookEndpoint>();
  const events: SandboxEvent[] = [];
  const deliveries: SandboxDelivery[] = [];
  const inflight = new Set<Promise<void>>();
  let deliver = true;
  let executed = 0;
  const retrieved = new Map<string, number>();
  const creators = new Map<string, string>();
  let base = "";

  const post = async (event: SandboxEvent, endpoint: SandboxWebhookEndpoint): Promise<void> => {
    const delivery: SandboxDelivery = {
      eventId: event.id,
      type: event.type,
      endpointId: endpoint.id,
      url: endpoint.url,
      attempts: [],
      delivered: false,
    };
    deliveries.push(delivery);
    if (deliveries.length > KEEP_RECENT) deliveries.shift();
    const payload = JSON.stringify(event, null, 2);
    for (const delay of SANDBOX_WEBHOOK_RETRY_DELAYS_MS) {
      if (delay) await sleep(delay, undefined, { ref: false });
      try {
        const response = await fetch(endpoint.url, {
          method: "POST",
          headers: {
            "content-type": "application/json; charset=utf-8",
            "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
            "stripe-signature": stripeSignatureHeader(
              payload,
              endpoint.secret,
              Math.floor(Date.now() / 1000),
            ),
          },
          body: payload,
          redirect: "manual",
          signal: AbortSignal.timeout(5_000),
        });
        await response.body?.cancel();
        delivery.attempts.push({ status: response.status });
        if (response.status >= 200 && response.status < 300) {
          delivery.delivered = true;
          return;
        }
      } catch (thrown) {
        delivery.attempts.push({ status: null, error: (thrown as Error).message });
      }
    }
  };

  /** A PaymentIntent reached `type`: the event, sent to the endpoints of the PaymentIntent's store. */
  const emit = (type: SandboxEventType, pi: PaymentIntent, request: RequestInfo) => {
    const targets = [...endpoints.values()].filter(
      (e) =>
        (e.enabled_events.includes(type) || e.enabled_events.includes("*")) &&
        e.metadata.store !== undefined &&
        e.metadata.store === pi.metadata.store,
    );
    const event: SandboxEvent = {
      id: `evt_${randomBytes(12).toString("hex")}`,
      object: "event",
      api_version: Stripe.API_VERSION,
      created: Math.floor(Date.now() / 1000),
      data: { object: JSON.parse(JSON.stringify(pi)) as PaymentIntent },
      livemode: pi.livemode,
      pending_webhooks: deliver ? targets.length : 0,
      // Stripe's event names the request, never the key it was made with
      request: { id: request.id, idempotency_key: request.idempotency_key },
      type,
    };
    events.push(event);
    if (events.length > KEEP_RECENT) events.shift();
    if (!deliver) return;
    for (const endpoint of targets) {
      // sent after the API response, like Stripe's asynchronous webhooks
      const sending: Promise<void> = sleep(0, undefined, { ref: false })
        .then(() => post(event, endpoint))
        .finally(() => inflight.delete(sending));
      inflight.add(sending);
    }
  };

  /** Confirms `pi` with `pm` in place: the outcome of each test payment method. */
  const confirm = (
    pi: PaymentIntent,
    pm: string | undefined,
    returnUrl: string | null,
    request: RequestInfo,
  ): Answer => {
    executed += 1;
    pi.payment_method = pm ?? pi.payment_method;
    pi.return_url = returnUrl ?? pi.return_url;
    pi.last_payment_error = null;
    const behaves = pi.payment_method
      ? (typedCards.get(pi.payment_method)?.method ?? BEHAVES_AS[pi.payment_method] ?? pi.payment_method)
      : null;
    switch (behaves) {
      case SANDBOX_PAYMENT_METHODS.succeeds:
        pi.status = "succeeded";
        pi.next_action = null;
        emit("payment_intent.succeeded", pi, request);
        return { status: 200, body: pi };
      case SANDBOX_PAYMENT_METHODS.requires3ds:
        pi.status = "requires_action";
        pi.next_action = {
          type: "redirect_to_url",
          redirect_to_url: { url: `${base}/sandbox/3ds/${pi.id}`, return_url: pi.return_url },
        };
        emit("payment_intent.requires_action", pi, request);
        return { status: 200, body: pi };
      case SANDBOX_PAYMENT_METHODS.declined: {
        pi.status = "requires_payment_method";
        pi.last_payment_error = {
          code: "card_declined",
          decline_code: "generic_decline",
          message: "Your card was declined.",
        };
        emit("payment_intent.payment_failed", pi, request);
        return error(402, "card_error", "Your card was declined.", {
          code: "card_declined",
          decline_code: "generic_decline",
          payment_intent: pi,
        });
      }
      default:
        return error(400, "invalid_request_error", `No such PaymentMethod: '${pi.payment_method}'`, {
          code: "resource_missing",
          param: "payment_method",
        });
    }
  };

  /** The buyer's answer to the 3-DS challenge of `id`; null when none is pending. */
  const answerChallenge = (id: string, approve: boolean): PaymentIntent | null => {
    const pi = intents.get(id);
    if (!pi || pi.status !== "requires_action") return null;
    pi.next_action = null;
    // the buyer's answer, not an API request: Stripe's event then has request.id null
    const buyer = { id: null, idempotency_key: null };
    if (approve) {
      pi.status = "succeeded";
      emit("payment_intent.succeeded", pi, buyer);
    } else {
      pi.status = "requires_payment_method";
      pi.last_payment_error = {
        code: "payment_intent_authentication_failure",
        message: "We are unable to authenticate your payment method.",
      };
      emit("payment_intent.payment_failed", pi, buyer);
    }
    return pi;
  };

  const route = (
    method: string,
    path: string,
    params: Record<string, unknown>,
    request: ApiRequest,
  ): Answer => {
    const [, v1, resource, id, action] = path.split("/");
    if (v1 === "sandbox" && resource === "3ds" && id && method === "POST") {
      const pi = answerChallenge(id, params.outcome === "approve");
      return pi ? { status: 200, body: pi } : error(400, "invalid_request_error", "No challenge pending");
    }
    if (v1 === "sandbox" && resource === "faults" && !id && method === "POST") {
      const count = params.cancel === "unavailable" ? Number(params.count ?? 1) : 0;
      cancelFailures = Number.isInteger(count) && count > 0 ? count : 0;
      return { status: 200, body: { cancel_failures: cancelFailures } };
    }
    if (v1 === "v1" && resource === "webhook_endpoints" && !id) return webhookEndpoints(method, params);
    if (v1 === "v1" && resource === "payment_intents" && id === "search" && method === "GET") {
      return search(params);
    }
    if (v1 === "v1" && resource === "refunds" && method === "POST" && !id) {
      const pi = typeof params.payment_intent === "string" ? intents.get(params.payment_intent) : undefined;
      if (!pi)
        return error(400, "invalid_request_error", "No such payment_intent", { param: "payment_intent" });
      if (pi.status !== "succeeded" || pi.amount_refunded >= pi.amount) {
        return error(400, "invalid_request_error", "This PaymentIntent cannot be refunded", {
          code: "charge_already_refunded",
        });
      }
      // Stripe: amount defaults to what is left; a partial refund may not exceed it
      const left = pi.amount - pi.amount_refunded;
      const amount = params.amount === undefined ? left : Number(params.amount);
      if (!Number.isInteger(amount) || amount < 1 || amount > left) {
        return error(
          400,
          "invalid_request_error",
          `Refund amount (${String(params.amount)}) is greater than unrefunded amount on charge (${left})`,
          { code: "amount_too_large", param: "amount" },
        );
      }
      pi.amount_refunded += amount;
      return {
        status: 200,
        body: {
          id: `re_${randomBytes(12).toString("hex")}`,
          object: "refund",
          amount,
          currency: pi.currency,
          payment_intent: pi.id,
          status: "succeeded",
        },
      };
    }
    if (v1 !== "v1" || resource !== "payment_intents")
      return error(404, "invalid_request_error", "Unrecognized request URL");
    if (method === "POST" && !id) {
      const amount = Number(params.amount);
      if (!Number.isInteger(amount) || amount < 1) {
        return error(400, "invalid_request_error", "Invalid integer: amount", { param: "amount" });
      }
      if (typeof params.currency !== "string") {
        return error(400, "invalid_request_error", "Missing required param: currency.", {
          param: "currency",
        });
      }
      const pi: PaymentIntent = {
        id: `pi_${randomBytes(12).toString("hex")}`,
        object: "payment_intent",
        amount,
        amount_refunded: 0,
        currency: params.currency.toLowerCase(),
        status: "requires_payment_method",
        payment_method: typeof params.payment_method === "string" ? params.payment_method : null,
        metadata: (params.metadata as Record<string, string>) ?? {},
        client_secret: "",
        livemode: !request.secretKey.startsWith("sk_test_") && !request.secretKey.startsWith("rk_test_"),
        created: Math.floor(Date.now() / 1000),
        next_action: null,
        last_payment_error: null,
        return_url: typeof params.return_url === "string" ? params.return_url : null,
        canceled_at: null,
        cancellation_reason: null,
      };
      pi.client_secret = `${pi.id}_secret_${randomBytes(8).toString("hex")}`;
      intents.set(pi.id, pi);
      creators.set(pi.id, request.secretKey);
      if (pi.payment_method && params.confirm === "true") return confirm(pi, undefined, null, request);
      if (pi.payment_method) pi.status = "requires_confirmation";
      return { status: 200, body: pi };
    }
    const pi = id ? intents.get(id) : undefined;
    if (!pi)
      return error(404, "invalid_request_error", `No such payment_intent: '${id}'`, {
        code: "resource_missing",
      });
    if (method === "GET" && !action) {
      retrieved.set(pi.id, (retrieved.get(pi.id) ?? 0) + 1);
      return { status: 200, body: pi };
    }
    if (method === "POST" && action === "confirm") {
      if (pi.status === "succeeded" || pi.status === "canceled") {
        return error(400, "invalid_request_error", `This PaymentIntent's status is ${pi.status}.`, {
          code: "payment_intent_unexpected_state",
          payment_intent: pi,
        });
      }
      confirmations.secret += 1;
      return confirm(
        pi,
        typeof params.payment_method === "string" ? params.payment_method : undefined,
        typeof params.return_url === "string" ? params.return_url : null,
        request,
      );
    }
    if (method === "POST" && action === "cancel") {
      if (cancelFailures > 0) {
        cancelFailures -= 1;
        // Stripe-Should-Retry: false, so the SDK reports the outage at once instead of retrying it away
        return {
          ...error(503, "api_error", "The sandbox is unavailable (fault injected by a test)."),
          headers: { "stripe-should-retry": "false" },
        };
      }
      if (!CANCELABLE.has(pi.status)) {
        return error(
          400,
          "invalid_request_error",
          `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
          { code: "payment_intent_unexpected_state", payment_intent: pi },
        );
      }
      pi.status = "canceled";
      pi.next_action = null;
      pi.canceled_at = Math.floor(Date.now() / 1000);
      pi.cancellation_reason =
        typeof params.cancellation_reason === "string" ? params.cancellation_reason : null;
      return { status: 200, body: pi };
    }
    return error(404, "invalid_request_error", "Unrecognized request URL");
  };

  /** Stripe's POST /v1/webhook_endpoints (create) and GET /v1/webhook_endpoints (list). */
  const webhookEndpoints = (method: string, params: Record<string, unknown>): Answer => {
    if (method === "GET") {
      const data = [...endpoints.values()].reverse();
      return { status: 200, body: { object: "list", data, has_more: false, url: "/v1/webhook_endpoints" } };
    }
    if (method !== "POST") return error(404, "invalid_request_error", "Unrecognized request URL");
    let url: URL | null = null;
    try {
      url = typeof params.url === "string" ? new URL(params.url) : null;
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol)) {
      return error(400, "invalid_request_error", "Invalid URL: An explicit scheme must be provided.", {
        param: "url",
      });
    }
    const enabled = Object.values((params.enabled_events as Record<string, string> | undefined) ?? {});
    const unknown = enabled.find((e) => e !== "*" && !(SANDBOX_EVENT_TYPES as readonly string[]).includes(e));
    if (enabled.length === 0 || unknown !== undefined) {
      return error(400, "invalid_request_error", `Invalid enabled_events: ${unknown ?? "(none)"}`, {
        param: "enabled_events",
      });
    }
    const endpoint: SandboxWebhookEndpoint = {
      id: `we_${randomBytes(12).toString("hex")}`,
      object: "webhook_endpoint",
      api_version: null,
      application: null,
      created: Math.floor(Date.now() / 1000),
      description: typeof params.description === "string" ? params.description : null,
      enabled_events: enabled,
      livemode: false,
      metadata: (params.metadata as Record<string, string>) ?? {},
      secret: SANDBOX_WEBHOOK_SECRET,
      status: "enabled",
      url: url.toString(),
    };
    endpoints.set(endpoint.id, endpoint);
    return { status: 200, body: endpoint };
  };

  /** Stripe's GET /v1/payment_intents/search, for the one clause the service sends: metadata['k']:'v'. */
  const search = (params: Record<string, unknown>): Answer => {
    const clause = /^metadata\['([\w-]+)'\]:'([^']*)'$/.exec(String(params.query ?? "").trim());
    if (!clause) {
      return error(400, "invalid_request_error", "The sandbox supports only metadata['key']:'value'", {
        param: "query",
      });
    }
    const [, key, value] = clause;
    const data = [...intents.values()].filter((pi) => pi.metadata[key!] === value).reverse();
    return {
      status: 200,
      body: {
        object: "search_result",
        data,
        has_more: false,
        next_page: null,
        url: "/v1/payment_intents/search",
      },
    };
  };

  const isSecretKey = (k: string) => /^(sk|rk)_test_\w+$/.test(k) || (keys.secret ?? []).includes(k);
  const isPublishableKey = (k: unknown) =>
    typeof k === "string" && (/^pk_test_\w+$/.test(k) || (keys.publishable ?? []).includes(k));

  /** The bank's challenge page and the buyer's answer to it (no API key: the buyer's browser). */
  const challengePage = (req: IncomingMessage, res: ServerResponse, id: string, raw: string) => {
    const pi = intents.get(id);
    if (req.method === "GET") {
      if (!pi || pi.status !== "requires_action") {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("No pending authentication");
        return;
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>3-D Secure (Stripe sandbox)</title></head>
<body><main><h1>Test bank: confirm this payment</h1>
<p>${escapeHtml(`${(pi.amount / 100).toFixed(2)} ${pi.currency.toUpperCase()}`)} (sandbox amounts assume two decimals)</p>
<form method="post"><button name="outcome" value="approve">Complete authentication</button>
<button name="outcome" value="fail">Fail authentication</button></form></main></body></html>`,
      );
      return;
    }
    const approve = new URLSearchParams(raw).get("outcome") === "approve";
    const answered = answerChallenge(id, approve);
    if (!answered || !answered.return_url) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("No pending authentication");
      return;
    }
    const back = new URL(answered.return_url);
    back.searchParams.set("payment_intent", answered.id);
    back.searchParams.set("payment_intent_client_secret", answered.client_secret);
    back.searchParams.set("redirect_status", approve ? "succeeded" : "failed");
    res.writeHead(302, { location: back.toString() }).end();
  };

  /**
   * Stripe.js in the buyer's browser: the publishable key opens one PaymentIntent together with its client
   * secret, to read it or to confirm it with the card number the buyer typed.
   */
  const browserRoute = (
    method: string,
    path: string,
    params: Record<string, unknown>,
    flat: URLSearchParams,
  ): Answer => {
    const [, v1, resource, id, action] = path.split("/");
    const pi = v1 === "v1" && resource === "payment_intents" && id ? intents.get(id) : undefined;
    if (!pi) return error(404, "invalid_request_error", "Unrecognized request URL");
    if (params.client_secret !== pi.client_secret) {
      return error(
        400,
        "invalid_request_error",
        "The client_secret provided does not match this PaymentIntent.",
      );
    }
    if (method === "GET" && !action) return { status: 200, body: pi };
    if (method !== "POST" || action !== "confirm")
      return error(404, "invalid_request_error", "Unrecognized request URL");
    if (pi.status === "succeeded" || pi.status === "canceled") {
      return error(400, "invalid_request_error", `This PaymentIntent's status is ${pi.status}.`, {
        code: "payment_intent_unexpected_state",
      });
    }
    const number = (flat.get("payment_method_data[card][number]") ?? "").replaceAll(" ", "");
    const card = TEST_CARD_NUMBERS[number];
    if (!card) return error(402, "card_error", "Your card number is invalid.", { code: "invalid_number" });
    const pm = `pm_${randomBytes(12).toString("hex")}`;
    typedCards.set(pm, { method: card.method, brand: "visa", last4: card.last4 });
    confirmations.publishable += 1;
    return confirm(pi, pm, typeof params.return_url === "string" ? params.return_url : null, {
      id: `req_${randomBytes(8).toString("hex")}`,
      idempotency_key: null,
    });
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const key = req.headers["idempotency-key"];
    const requestId = `req_${randomBytes(8).toString("hex")}`;
    const send = (a: Answer, replayed = false) =>
      res
        .writeHead(a.status, {
          "content-type": "application/json",
          "request-id": requestId,
          // Stripe's API answers Stripe.js cross-origin
          "access-control-allow-origin": "*",
          ...(replayed ? { "idempotent-replayed": "true" } : {}),
          ...a.headers,
        })
        .end(JSON.stringify(a.body));
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", base);
    const path = url.pathname;
    if (method === "OPTIONS") {
      res
        .writeHead(204, {
          "access-control-allow-origin": "*",
          "access-control-allow-methods": "GET, POST",
          "access-control-allow-headers": "content-type, authorization, stripe-version",
        })
        .end();
      return;
    }
    const rawParams = method === "GET" ? url.search.slice(1) : raw;
    const params = parseForm(rawParams);
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    const challenge = /^\/sandbox\/3ds\/(pi_\w+)$/.exec(path);
    if (challenge && (method === "GET" || (method === "POST" && bearer === undefined))) {
      return challengePage(req, res, challenge[1]!, raw);
    }
    if (bearer === undefined && isPublishableKey(params.key)) {
      return send(
        expandAnswer(browserRoute(method, path, params, new URLSearchParams(rawParams)), params, cardOf),
      );
    }
    if (bearer === undefined || !isSecretKey(bearer)) {
      return send(error(401, "invalid_request_error", "Invalid API Key provided"));
    }
    const request: ApiRequest = {
      id: requestId,
      idempotency_key: typeof key === "string" ? key : null,
      secretKey: bearer,
    };
    if (method === "POST" && typeof key === "string") {
      const scoped = `${bearer} ${key}`;
      const previous = idempotency.get(scoped);
      const fingerprint = `${path} ${raw}`;
      if (previous) {
        if (previous.params !== fingerprint) {
          return send(
            error(
              400,
              "idempotency_error",
              "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            ),
          );
        }
        return send(previous.answer, true);
      }
      const answer = expandAnswer(route(method, path, params, request), params, cardOf);
      // Stripe keeps the first result (errors included) as a snapshot, but not a failure of its own (5xx)
      if (answer.status < 500) {
        idempotency.set(scoped, {
          params: fingerprint,
          answer: JSON.parse(JSON.stringify(answer)) as Answer,
        });
      }
      return send(answer);
    }
    return send(expandAnswer(route(method, path, params, request), params, cardOf));
  };

  const server: Server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => handle(req, res, raw));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(wanted, "127.0.0.1", resolve);
  });
  if (unref) server.unref();
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    host: "127.0.0.1",
    port,
    protocol: "http",
    paymentIntents: () => [...intents.values()],
    executed: () => executed,
    retrievals: (paymentIntentId) => retrieved.get(paymentIntentId) ?? 0,
    createdWith: (paymentIntentId) => creators.get(paymentIntentId),
    webhookEndpoints: () => [...endpoints.values()],
    events: () => [...events],
    deliveries: () => [...deliveries],
    webhooksSettled: async () => {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
    setWebhookDelivery: (on) => {
      deliver = on;
    },
    confirmations: () => ({ ...confirmations }),
    failCancels: (count) => {
      cancelFailures = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const KEY = Symbol.for("agent-commerce-service.stripe-sandbox");
type Holder = { [KEY]?: Promise<StripeSandbox> };

/** The sandbox of a test process (shared across module instances through globalThis). */
export const stripeSandbox = (): Promise<StripeSandbox> =>
  ((globalThis as Holder)[KEY] ??= startStripeSandbox());
