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

// The sandbox PSP (issue #5 §6, DECISIONS.md A/B4): a local HTTP server speaking the subset of the Stripe API
// the card adapter calls — POST /v1/payment_intents (create, optionally confirm), GET /v1/payment_intents/:id,
// POST /v1/payment_intents/:id/confirm — with Stripe's Idempotency-Key semantics (same key + same params →
// the same response, replayed; different params → 400 idempotency_error) and Stripe's test payment methods.
// It is a test double of Stripe: test-mode stores, the embedded demo and the tests reach it through the
// official SDK's host/port/protocol options, exactly like the real API. A separate process for `npm start`
// (sandbox/stripe/main.ts), or a server inside a test process (stripeSandbox()); the product reaches it only over
// HTTP, at STRIPE_SANDBOX_URL. `/sandbox/3ds/:id` is the
// sandbox's own 3-DS challenge outcome (real Stripe shows its challenge page at next_action.redirect_to_url).
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
  livemode: false;
  created: number;
  next_action: {
    type: "redirect_to_url";
    redirect_to_url: { url: string; return_url: string | null };
  } | null;
  last_payment_error: { code: string; decline_code?: string; message: string } | null;
  return_url: string | null;
};

type Answer = { status: number; body: unknown };

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
  livemode: false;
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

export type StripeSandbox = {
  url: string;
  host: string;
  port: number;
  protocol: "http";
  /** Every PaymentIntent by id (tests read charges from here). */
  paymentIntents: () => PaymentIntent[];
  /** Number of create/confirm requests that actually ran (replays excluded). */
  executed: () => number;
  /** Registered webhook endpoints, events generated and deliveries made (tests read them). */
  webhookEndpoints: () => SandboxWebhookEndpoint[];
  events: () => SandboxEvent[];
  deliveries: () => SandboxDelivery[];
  /** Resolves once every delivery under way (retries included) has finished. */
  webhooksSettled: () => Promise<void>;
  /** Turns sending on or off (events are still generated); e.g. the crash test, which tests other paths. */
  setWebhookDelivery: (on: boolean) => void;
};

/** The card behind each of Stripe's test payment methods (brand, last four digits of its documented number). */
const TEST_CARDS: Record<string, { brand: string; last4: string }> = {
  [SANDBOX_PAYMENT_METHODS.succeeds]: { brand: "visa", last4: "4242" },
  [SANDBOX_PAYMENT_METHODS.requires3ds]: { brand: "visa", last4: "3220" },
  [SANDBOX_PAYMENT_METHODS.declined]: { brand: "visa", last4: "0002" },
};

/** Stripe's `expand[]=payment_method` on a PaymentIntent answer: the id becomes the PaymentMethod object. */
const expandAnswer = (answer: Answer, params: Record<string, unknown>): Answer => {
  const expand = Object.values((params.expand as Record<string, string> | undefined) ?? {});
  const body = answer.body as { object?: string; payment_method?: unknown } | null;
  if (!expand.includes("payment_method") || body?.object !== "payment_intent") return answer;
  const id = body.payment_method;
  const card = typeof id === "string" ? TEST_CARDS[id] : undefined;
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
export const startStripeSandbox = async ({ port: wanted = 0, unref = true } = {}): Promise<StripeSandbox> => {
  const intents = new Map<string, PaymentIntent>();
  const idempotency = new Map<string, { params: string; answer: Answer }>();
  const endpoints = new Map<string, SandboxWebhookEndpoint>();
  const events: SandboxEvent[] = [];
  const deliveries: SandboxDelivery[] = [];
  const inflight = new Set<Promise<void>>();
  let deliver = true;
  let executed = 0;
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
      livemode: false,
      pending_webhooks: deliver ? targets.length : 0,
      request,
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
    switch (pi.payment_method) {
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

  const route = (
    method: string,
    path: string,
    params: Record<string, unknown>,
    request: RequestInfo,
  ): Answer => {
    const [, v1, resource, id, action] = path.split("/");
    if (v1 === "sandbox" && resource === "3ds" && id && method === "POST") {
      const pi = intents.get(id);
      if (!pi || pi.status !== "requires_action")
        return error(400, "invalid_request_error", "No challenge pending");
      pi.next_action = null;
      // the buyer's answer, not an API request: Stripe's event then has request.id null
      const buyer = { id: null, idempotency_key: null };
      if (params.outcome === "approve") {
        pi.status = "succeeded";
        emit("payment_intent.succeeded", pi, buyer);
      } else {
        pi.status = "requires_payment_method";
        pi.last_payment_error = { code: "payment_intent_authentication_failure", message: "3-DS failed" };
        emit("payment_intent.payment_failed", pi, buyer);
      }
      return { status: 200, body: pi };
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
        livemode: false,
        created: Math.floor(Date.now() / 1000),
        next_action: null,
        last_payment_error: null,
        return_url: typeof params.return_url === "string" ? params.return_url : null,
      };
      pi.client_secret = `${pi.id}_secret_${randomBytes(8).toString("hex")}`;
      intents.set(pi.id, pi);
      if (pi.payment_method && params.confirm === "true") return confirm(pi, undefined, null, request);
      if (pi.payment_method) pi.status = "requires_confirmation";
      return { status: 200, body: pi };
    }
    const pi = id ? intents.get(id) : undefined;
    if (!pi)
      return error(404, "invalid_request_error", `No such payment_intent: '${id}'`, {
        code: "resource_missing",
      });
    if (method === "GET" && !action) return { status: 200, body: pi };
    if (method === "POST" && action === "confirm") {
      if (pi.status === "succeeded") {
        return error(400, "invalid_request_error", "This PaymentIntent has already succeeded.", {
          code: "payment_intent_unexpected_state",
        });
      }
      return confirm(
        pi,
        typeof params.payment_method === "string" ? params.payment_method : undefined,
        typeof params.return_url === "string" ? params.return_url : null,
        request,
      );
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

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const key = req.headers["idempotency-key"];
    const request: RequestInfo = {
      id: `req_${randomBytes(8).toString("hex")}`,
      idempotency_key: typeof key === "string" ? key : null,
    };
    const send = (a: Answer, replayed = false) =>
      res
        .writeHead(a.status, {
          "content-type": "application/json",
          "request-id": request.id!,
          ...(replayed ? { "idempotent-replayed": "true" } : {}),
        })
        .end(JSON.stringify(a.body));
    if (!req.headers.authorization?.startsWith("Bearer sk_test_")) {
      return send(error(401, "invalid_request_error", "Invalid API Key provided"));
    }
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", base);
    const path = url.pathname;
    const params = parseForm(method === "GET" ? url.search.slice(1) : raw);
    if (method === "POST" && typeof key === "string") {
      const scoped = `${req.headers.authorization} ${key}`;
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
      const answer = expandAnswer(route(method, path, params, request), params);
      // Stripe keeps the first result (errors included) as a snapshot
      idempotency.set(scoped, { params: fingerprint, answer: JSON.parse(JSON.stringify(answer)) as Answer });
      return send(answer);
    }
    return send(expandAnswer(route(method, path, params, request), params));
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
    webhookEndpoints: () => [...endpoints.values()],
    events: () => [...events],
    deliveries: () => [...deliveries],
    webhooksSettled: async () => {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
    setWebhookDelivery: (on) => {
      deliver = on;
    },
  };
};

const KEY = Symbol.for("agent-commerce-service.stripe-sandbox");
type Holder = { [KEY]?: Promise<StripeSandbox> };

/** The sandbox of a test process (shared across module instances through globalThis). */
export const stripeSandbox = (): Promise<StripeSandbox> =>
  ((globalThis as Holder)[KEY] ??= startStripeSandbox());
