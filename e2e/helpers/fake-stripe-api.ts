import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// TEST DOUBLE of the Stripe HTTP API for the live hosted payment page (issue #5 §3). The service reaches it
// through the official SDK (STRIPE_API_URL → host/port/protocol) with a secret key; the Stripe.js test double
// (fake-stripe-js.ts) reaches it from the browser the way Stripe.js does: form-encoded POSTs carrying the
// publishable key (`key`) and the PaymentIntent's `client_secret`. Just the documented surface in use:
//   POST /v1/payment_intents              create (optionally confirm), Idempotency-Key replayed
//   GET  /v1/payment_intents/:id          secret key, or key + client_secret (publishable)
//   POST /v1/payment_intents/:id/confirm  secret key + payment_method (pm_card_*), or publishable key +
//                                         client_secret + payment_method_data[card][number] (test card numbers)
//   POST /v1/refunds
// Stripe's test cards: 4242… / pm_card_visa succeed; 4000 0027 6000 3184 / pm_card_threeDSecure2Required need
// 3-D Secure (next_action redirect_to_url → this server's /fake-3ds/:id page, which returns the buyer to
// return_url with payment_intent, payment_intent_client_secret and redirect_status, as Stripe does);
// 4000 0000 0000 0002 / pm_card_chargeDeclined decline (402 card_error, PaymentIntent back to
// requires_payment_method with last_payment_error). One account: every secret key in `secretKeys` and the
// one publishable key see the same PaymentIntents.

type PaymentIntent = {
  id: string;
  object: "payment_intent";
  amount: number;
  currency: string;
  status: "requires_payment_method" | "requires_action" | "succeeded";
  client_secret: string;
  payment_method: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  created: number;
  next_action: { type: "redirect_to_url"; redirect_to_url: { url: string; return_url: string } } | null;
  last_payment_error: { type: string; code: string; decline_code?: string; message: string } | null;
  return_url: string | null;
};

export type FakeStripeApi = {
  url: string;
  paymentIntents: () => PaymentIntent[];
  /** Confirmations by caller: publishable key (browser) or secret key (server). */
  confirmations: () => { publishable: number; secret: number };
  close: () => Promise<void>;
};

type Outcome = "succeeds" | "requires_3ds" | "declined";

const CARDS: Record<string, Outcome> = {
  "4242424242424242": "succeeds",
  pm_card_visa: "succeeds",
  "4000002760003184": "requires_3ds",
  pm_card_threeDSecure2Required: "requires_3ds",
  "4000000000000002": "declined",
  pm_card_chargeDeclined: "declined",
};

const parseForm = (raw: string): Record<string, string> => Object.fromEntries(new URLSearchParams(raw));

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, {
    "content-type": "application/json",
    // Stripe's API answers browsers (Stripe.js) cross-origin
    "access-control-allow-origin": "*",
    "request-id": `req_${randomBytes(6).toString("hex")}`,
  });
  res.end(JSON.stringify(body));
};

const stripeError = (status: number, type: string, message: string, extra: Record<string, unknown> = {}) => ({
  status,
  body: { error: { type, message, ...extra } },
});

export const startFakeStripeApi = async (options: {
  secretKeys: string[];
  publishableKey: string;
}): Promise<FakeStripeApi> => {
  const intents = new Map<string, PaymentIntent>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const counts = { publishable: 0, secret: 0 };
  let base = "";

  const confirm = (
    pi: PaymentIntent,
    paymentMethod: string,
    returnUrl: string | null,
  ): { status: number; body: unknown } => {
    if (pi.status === "succeeded") {
      return stripeError(400, "invalid_request_error", "This PaymentIntent has already succeeded.", {
        code: "payment_intent_unexpected_state",
      });
    }
    const outcome = CARDS[paymentMethod];
    if (!outcome) {
      return stripeError(402, "card_error", "Your card number is invalid.", { code: "invalid_number" });
    }
    pi.payment_method = `pm_${randomBytes(8).toString("hex")}`;
    pi.return_url = returnUrl;
    pi.next_action = null;
    pi.last_payment_error = null;
    if (outcome === "declined") {
      pi.status = "requires_payment_method";
      pi.last_payment_error = {
        type: "card_error",
        code: "card_declined",
        decline_code: "generic_decline",
        message: "Your card was declined.",
      };
      return stripeError(402, "card_error", "Your card was declined.", {
        code: "card_declined",
        decline_code: "generic_decline",
        payment_intent: pi,
      });
    }
    if (outcome === "requires_3ds") {
      if (!returnUrl) {
        return stripeError(400, "invalid_request_error", "A return_url is required for 3-D Secure.", {
          param: "return_url",
        });
      }
      pi.status = "requires_action";
      pi.next_action = {
        type: "redirect_to_url",
        redirect_to_url: { url: `${base}/fake-3ds/${pi.id}`, return_url: returnUrl },
      };
      return { status: 200, body: pi };
    }
    pi.status = "succeeded";
    return { status: 200, body: pi };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base);
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "content-type, authorization",
      });
      res.end();
      return;
    }
    const raw = req.method === "POST" ? await readBody(req) : "";
    const form = parseForm(raw);
    const params = req.method === "GET" ? Object.fromEntries(url.searchParams) : form;

    // the bank's 3-D Secure page (real Stripe shows its own at next_action.redirect_to_url)
    const challenge = /^\/fake-3ds\/(pi_\w+)$/.exec(url.pathname);
    if (challenge) {
      const pi = intents.get(challenge[1]!);
      if (!pi || pi.status !== "requires_action" || !pi.return_url) {
        res.writeHead(404, { "content-type": "text/plain" }).end("No pending authentication");
        return;
      }
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
          `<!doctype html><html lang="en"><head><title>3-D Secure (test double)</title></head><body>
<h1>Test bank: confirm this payment</h1>
<form method="post"><button name="outcome" value="approve">Complete authentication</button>
<button name="outcome" value="fail">Fail authentication</button></form></body></html>`,
        );
        return;
      }
      const approved = form.outcome === "approve";
      pi.next_action = null;
      if (approved) pi.status = "succeeded";
      else {
        pi.status = "requires_payment_method";
        pi.last_payment_error = {
          type: "card_error",
          code: "payment_intent_authentication_failure",
          message: "We are unable to authenticate your payment method.",
        };
      }
      const back = new URL(pi.return_url);
      back.searchParams.set("payment_intent", pi.id);
      back.searchParams.set("payment_intent_client_secret", pi.client_secret);
      back.searchParams.set("redirect_status", approved ? "succeeded" : "failed");
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }

    // authentication: a secret key (server, Bearer) or the publishable key (browser, `key` parameter)
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const secret = bearer !== undefined && options.secretKeys.includes(bearer);
    const publishable = !secret && params.key === options.publishableKey;
    if (!secret && !publishable) {
      send(res, 401, {
        error: { type: "invalid_request_error", message: "Invalid API Key provided" },
      });
      return;
    }
    const answer = (a: { status: number; body: unknown }) => send(res, a.status, a.body);

    if (req.method === "POST" && url.pathname === "/v1/payment_intents" && secret) {
      const key = req.headers["idempotency-key"];
      const replayKey = typeof key === "string" ? `${key}\n${raw}` : null;
      const replay = replayKey ? replays.get(replayKey) : undefined;
      if (replay) return answer(replay);
      const id = `pi_${randomBytes(12).toString("hex")}`;
      const metadata: Record<string, string> = {};
      for (const [k, v] of Object.entries(form)) {
        const m = /^metadata\[(\w+)\]$/.exec(k);
        if (m) metadata[m[1]!] = v;
      }
      const pi: PaymentIntent = {
        id,
        object: "payment_intent",
        amount: Number(form.amount),
        currency: form.currency ?? "usd",
        status: "requires_payment_method",
        client_secret: `${id}_secret_${randomBytes(12).toString("hex")}`,
        payment_method: null,
        metadata,
        livemode: !bearer.startsWith("sk_test_"),
        created: Math.floor(Date.now() / 1000),
        next_action: null,
        last_payment_error: null,
        return_url: null,
      };
      intents.set(id, pi);
      const result =
        form.confirm === "true" && form.payment_method
          ? confirm(pi, form.payment_method, form.return_url ?? null)
          : { status: 200, body: pi };
      if (replayKey) replays.set(replayKey, result);
      return answer(result);
    }

    const match = /^\/v1\/payment_intents\/(pi_\w+?)(\/confirm)?$/.exec(url.pathname);
    const pi = match ? intents.get(match[1]!) : undefined;
    if (match && !pi) {
      return answer(
        stripeError(404, "invalid_request_error", `No such payment_intent: '${match[1]}'`, {
          code: "resource_missing",
        }),
      );
    }
    // the publishable key only opens a PaymentIntent together with its client secret
    if (pi && publishable && params.client_secret !== pi.client_secret) {
      return answer(
        stripeError(
          400,
          "invalid_request_error",
          "The client_secret provided does not match this PaymentIntent.",
        ),
      );
    }
    if (pi && req.method === "GET" && !match![2]) return answer({ status: 200, body: pi });
    if (pi && req.method === "POST" && match![2]) {
      if (publishable) counts.publishable += 1;
      else counts.secret += 1;
      const method = publishable
        ? (form["payment_method_data[card][number]"] ?? "")
        : (form.payment_method ?? "");
      return answer(confirm(pi, method.replaceAll(" ", ""), form.return_url ?? null));
    }
    if (req.method === "POST" && url.pathname === "/v1/refunds" && secret) {
      return answer({
        status: 200,
        body: {
          id: `re_${randomBytes(8).toString("hex")}`,
          object: "refund",
          payment_intent: form.payment_intent,
        },
      });
    }
    answer(
      stripeError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname})`),
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 500, { error: { type: "api_error", message: String(error) } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    paymentIntents: () => [...intents.values()],
    confirmations: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
