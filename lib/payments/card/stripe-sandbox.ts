import "server-only";

import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// The sandbox PSP (issue #5 §6, DECISIONS.md A/B4): a local HTTP server speaking the subset of the Stripe API
// the card adapter calls — POST /v1/payment_intents (create, optionally confirm), GET /v1/payment_intents/:id,
// POST /v1/payment_intents/:id/confirm — with Stripe's Idempotency-Key semantics (same key + same params →
// the same response, replayed; different params → 400 idempotency_error) and Stripe's test payment methods.
// It is a test double of Stripe: test-mode stores, the embedded demo and the tests reach it through the
// official SDK's host/port/protocol options, exactly like the real API. Started in-process on first use
// (127.0.0.1, random port, unref'd), or an external one named by STRIPE_SANDBOX_URL. `/sandbox/3ds/:id` is the
// sandbox's own 3-DS challenge outcome (real Stripe shows its challenge page at next_action.redirect_to_url).

export const SANDBOX_SECRET_KEY = "sk_test_sandbox";

/** Stripe's documented test payment methods, and what the sandbox does with them. */
export const SANDBOX_PAYMENT_METHODS = {
  succeeds: "pm_card_visa",
  requires3ds: "pm_card_threeDSecure2Required",
  declined: "pm_card_chargeDeclined",
} as const;

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

export type StripeSandbox = {
  url: string;
  host: string;
  port: number;
  protocol: "http";
  /** Every PaymentIntent by id (tests read charges from here). */
  paymentIntents: () => PaymentIntent[];
  /** Number of create/confirm requests that actually ran (replays excluded). */
  executed: () => number;
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

const error = (
  status: number,
  type: string,
  message: string,
  extra: Record<string, unknown> = {},
): Answer => ({
  status,
  body: { error: { type, message, ...extra } },
});

const start = async (): Promise<StripeSandbox> => {
  const intents = new Map<string, PaymentIntent>();
  const idempotency = new Map<string, { params: string; answer: Answer }>();
  let executed = 0;
  let base = "";

  /** Confirms `pi` with `pm` in place: the outcome of each test payment method. */
  const confirm = (pi: PaymentIntent, pm: string | undefined, returnUrl: string | null): Answer => {
    executed += 1;
    pi.payment_method = pm ?? pi.payment_method;
    pi.return_url = returnUrl ?? pi.return_url;
    switch (pi.payment_method) {
      case SANDBOX_PAYMENT_METHODS.succeeds:
        pi.status = "succeeded";
        pi.next_action = null;
        return { status: 200, body: pi };
      case SANDBOX_PAYMENT_METHODS.requires3ds:
        pi.status = "requires_action";
        pi.next_action = {
          type: "redirect_to_url",
          redirect_to_url: { url: `${base}/sandbox/3ds/${pi.id}`, return_url: pi.return_url },
        };
        return { status: 200, body: pi };
      case SANDBOX_PAYMENT_METHODS.declined: {
        pi.status = "requires_payment_method";
        pi.last_payment_error = {
          code: "card_declined",
          decline_code: "generic_decline",
          message: "Your card was declined.",
        };
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

  const route = (method: string, path: string, params: Record<string, unknown>): Answer => {
    const [, v1, resource, id, action] = path.split("/");
    if (v1 === "sandbox" && resource === "3ds" && id && method === "POST") {
      const pi = intents.get(id);
      if (!pi || pi.status !== "requires_action")
        return error(400, "invalid_request_error", "No challenge pending");
      if (params.outcome === "approve") pi.status = "succeeded";
      else {
        pi.status = "requires_payment_method";
        pi.last_payment_error = { code: "payment_intent_authentication_failure", message: "3-DS failed" };
      }
      pi.next_action = null;
      return { status: 200, body: pi };
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
      if (pi.payment_method && params.confirm === "true") return confirm(pi, undefined, null);
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
      );
    }
    return error(404, "invalid_request_error", "Unrecognized request URL");
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const send = (a: Answer, replayed = false) =>
      res
        .writeHead(a.status, {
          "content-type": "application/json",
          "request-id": `req_${randomBytes(8).toString("hex")}`,
          ...(replayed ? { "idempotent-replayed": "true" } : {}),
        })
        .end(JSON.stringify(a.body));
    if (!req.headers.authorization?.startsWith("Bearer sk_test_")) {
      return send(error(401, "invalid_request_error", "Invalid API Key provided"));
    }
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", base).pathname;
    const params = parseForm(raw);
    const key = req.headers["idempotency-key"];
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
      const answer = route(method, path, params);
      // Stripe keeps the first result (errors included) as a snapshot
      idempotency.set(scoped, { params: fingerprint, answer: JSON.parse(JSON.stringify(answer)) as Answer });
      return send(answer);
    }
    return send(route(method, path, params));
  };

  const server: Server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    host: "127.0.0.1",
    port,
    protocol: "http",
    paymentIntents: () => [...intents.values()],
    executed: () => executed,
  };
};

const KEY = Symbol.for("agent-commerce-service.stripe-sandbox");
type Holder = { [KEY]?: Promise<StripeSandbox> };

/** The process-wide sandbox (shared across module instances through globalThis). */
export const stripeSandbox = (): Promise<StripeSandbox> => ((globalThis as Holder)[KEY] ??= start());

/** Where the adapter sends test-mode requests: STRIPE_SANDBOX_URL (an external sandbox) or the in-process one. */
export const sandboxEndpoint = async (): Promise<{
  host: string;
  port: number;
  protocol: "http" | "https";
}> => {
  const external = process.env.STRIPE_SANDBOX_URL;
  if (external) {
    const url = new URL(external);
    const protocol = url.protocol === "https:" ? "https" : "http";
    return { host: url.hostname, port: Number(url.port || (protocol === "https" ? 443 : 80)), protocol };
  }
  const sandbox = await stripeSandbox();
  return { host: sandbox.host, port: sandbox.port, protocol: sandbox.protocol };
};

/**
 * The buyer's answer to the sandbox 3-DS challenge (test-mode hosted page only; real Stripe runs its own
 * challenge). Talks to the sandbox over HTTP like the SDK does.
 */
export const answerSandboxChallenge = async (paymentIntentId: string, approve: boolean): Promise<void> => {
  const { host, port, protocol } = await sandboxEndpoint();
  const response = await fetch(
    `${protocol}://${host}:${port}/sandbox/3ds/${encodeURIComponent(paymentIntentId)}`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${SANDBOX_SECRET_KEY}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ outcome: approve ? "approve" : "fail" }).toString(),
    },
  );
  await response.body?.cancel();
};
