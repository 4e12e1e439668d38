import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import type { JWK } from "jose";
import Stripe from "stripe";

import { chargeSettled } from "@/lib/checkout/completion/charges-under-way";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { answerSandboxChallenge } from "@/lib/payments/card/sandbox-client";
import { disableSandboxWebhooks, enableSandboxWebhooks } from "@/lib/payments/card/sandbox-webhooks";
import {
  SANDBOX_EVENT_TYPES,
  SANDBOX_SECRET_KEY,
  SANDBOX_WEBHOOK_SECRET,
  stripeSandbox,
  stripeSignatureHeader,
  type SandboxEvent,
  type StripeSandbox,
} from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, rest } from "../../helpers/app-client";
import { connectMcpClient, type McpClient } from "../../helpers/mcp-client";
import { statementsOf } from "../../helpers/sql-statements";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// Signed Stripe webhook events from the sandbox PSP, end to end: the service registers each test
// store's endpoint through the official SDK (stripe.webhookEndpoints.create) before its first charge; the sandbox
// POSTs Stripe's Event object with a Stripe-Signature header to it, retrying failures; our route
// (stripe.webhooks.constructEvent) verifies, dedupes by event id and finishes the order. The endpoint is a small
// local HTTP server here (a test double of the public address) that forwards the raw body and headers to the real
// route handler in-process (callApp), so the bytes the sandbox signed are the bytes the route verifies.

type Received = {
  path: string;
  headers: Record<string, string>;
  raw: string;
  status: number;
  body: Record<string, unknown>;
};

let store: Store;
let other: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };
let mug: { id: string };
let client: McpClient;
let sandbox: StripeSandbox;
let forwarder: Server;
let forwarderUrl: string;
const received: Received[] = [];
/** Event types whose next N deliveries the endpoint answers 503 (to see the sandbox retry). */
const failNext = new Map<string, number>();
/** For each payment_intent.succeeded delivered: was a completion of its checkout under way here as it arrived. */
const chargeUnderWayAtDelivery = new Map<string, boolean>();
/**
 * For each payment_intent.succeeded delivered once: was that completion still under way when the route had claimed
 * the event, the moment before the route asks the same (the completion may finish while the delivery travels).
 */
const chargeUnderWayAtClaim = new Map<string, boolean>();
/** For each payment_intent.succeeded delivered once: the SQL statements its handling sent. */
const statementsAtDelivery = new Map<string, string[]>();
/** When set, each delivery is handed to the route twice at once (a duplicate delivery racing the first). */
let deliverTwiceAtOnce = false;

const forward = async (path: string, headers: Record<string, string>, raw: string) => {
  const res = await callApp("POST", path, { headers, rawBody: raw });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore();
  other = await seedStore();
  sock = (await seedProduct(store, { variants: [{ priceMinor: 1200, inventory: 50 }] })).variants[0]!;
  mug = (await seedProduct(other, { variants: [{ priceMinor: 700, inventory: 50 }] })).variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  await seedShippingRates(other, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
  client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
  sandbox = await stripeSandbox();
  forwarder = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", async () => {
      const headers = {
        "content-type": String(req.headers["content-type"]),
        "stripe-signature": String(req.headers["stripe-signature"]),
      };
      const event = JSON.parse(raw) as SandboxEvent;
      const type = event.type;
      if (type === "payment_intent.succeeded" && event.data.object.metadata.checkout_id) {
        // whether this process had a completion of the checkout under way as the event arrived (a zero bound:
        // it only looks)
        chargeUnderWayAtDelivery.set(
          event.data.object.id,
          (await chargeSettled(event.data.object.metadata.checkout_id, 0)).waited,
        );
      }
      const failures = failNext.get(type) ?? 0;
      let answer: { status: number; body: Record<string, unknown> };
      if (failures > 0) {
        failNext.set(type, failures - 1);
        answer = { status: 503, body: { error: "endpoint down (test)" } };
      } else if (deliverTwiceAtOnce) {
        const both = await Promise.all([forward(req.url!, headers, raw), forward(req.url!, headers, raw)]);
        received.push({ path: req.url!, headers, raw, ...both[1] });
        answer = both[0];
      } else if (type === "payment_intent.succeeded") {
        const intentId = event.data.object.id;
        const named = event.data.object.metadata.checkout_id;
        const handled = await statementsOf(
          () => forward(req.url!, headers, raw),
          (sql) => {
            // chargeSettled looks at what is under way as it is called, before its first await
            if (named && /INSERT INTO stripe_webhook_events/.test(sql)) {
              void chargeSettled(named, 0).then(({ waited }) => chargeUnderWayAtClaim.set(intentId, waited));
            }
          },
        );
        statementsAtDelivery.set(event.data.object.id, handled.sql);
        answer = handled.result;
      } else answer = await forward(req.url!, headers, raw);
      received.push({ path: req.url!, headers, raw, ...answer });
      res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => forwarder.listen(0, "127.0.0.1", resolve));
  forwarderUrl = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  enableSandboxWebhooks({ baseUrl: forwarderUrl });
});
after(async () => {
  disableSandboxWebhooks();
  await client.close();
  await new Promise((resolve) => forwarder.close(resolve));
  await closeTestDatabase();
});

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const readyCheckout = async (s: Store, variantId: string) => {
  const created = await rest<Checkout>("POST", `/s/${s.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
};

const completion = async (s: Store, c: Checkout, token: string) => ({
  payment: {
    instruments: [{ handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token } }],
  },
  ap2: {
    checkout_mandate: await signCheckoutMandate(mandateTerms(c, s.slug), {
      privateJwk: agentKey.privateJwk,
      kid: agentKey.kid,
      exp: Math.floor(Date.now() / 1000) + 600,
    }),
  },
});

const completeRest = async (s: Store, c: Checkout, token: string) =>
  rest<Checkout>("POST", `/s/${s.slug}/checkout-sessions/${c.id}/complete`, {
    headers: headers(),
    body: await completion(s, c, token),
  });

const intentOf = (checkoutId: string) => {
  const found = sandbox.paymentIntents().filter((p) => p.metadata.checkout_id === checkoutId);
  assert.equal(found.length, 1, "one PaymentIntent");
  return found[0]!;
};

const eventsOf = (piId: string) =>
  received
    .map((r) => ({ ...r, event: JSON.parse(r.raw) as SandboxEvent }))
    .filter((r) => r.event.data.object.id === piId);

const orderCount = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

const statusOf = async (s: Store, id: string) =>
  (await rest<Checkout>("GET", `/s/${s.slug}/checkout-sessions/${id}`, { headers: { "x-api-key": key } }))
    .body;

test("3-DS answered outside any completion call: payment_intent.succeeded, signed and retried, places the order once; a second delivery is a duplicate", async () => {
  const c = await readyCheckout(store, sock.id);
  const escalated = await completeRest(store, c, "pm_card_threeDSecure2Required");
  assert.equal(escalated.body.status, "requires_escalation", escalated.text);
  await sandbox.webhooksSettled();
  const pi = intentOf(c.id);

  // payment_intent.requires_action is delivered, acknowledged (200) and changes nothing
  const [action] = eventsOf(pi.id);
  assert.ok(action, "the requires_action event was delivered");
  assert.equal(action.event.type, "payment_intent.requires_action");
  assert.equal(action.status, 200);
  assert.deepEqual(action.body, { received: true });
  assert.equal(action.path, `/s/${store.slug}/stripe/webhook`);
  assert.equal((await statusOf(store, c.id)).status, "requires_escalation");

  // Stripe's Event object, caused by our create+confirm request (its Idempotency-Key is ours)
  assert.match(action.event.id, /^evt_/);
  assert.equal(action.event.object, "event");
  assert.equal(action.event.livemode, false);
  assert.equal(action.event.api_version, Stripe.API_VERSION);
  assert.equal(action.event.pending_webhooks, 1);
  assert.match(action.event.request.id ?? "", /^req_/);
  assert.match(action.event.request.idempotency_key ?? "", new RegExp(`^acs-${c.id}-a1-`));
  assert.ok(Math.abs(action.event.created - Date.now() / 1000) < 60);
  assert.equal(action.event.data.object.status, "requires_action");
  assert.equal(action.event.data.object.metadata.store, store.slug);
  // Stripe's signature scheme, recomputed independently: t=<unix>,v1=<hex HMAC-SHA256("t.payload")>
  const sig = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(action.headers["stripe-signature"]!);
  assert.ok(sig, action.headers["stripe-signature"]);
  assert.equal(
    sig[2],
    createHmac("sha256", SANDBOX_WEBHOOK_SECRET).update(`${sig[1]}.${action.raw}`).digest("hex"),
  );
  assert.match(action.headers["content-type"]!, /^application\/json/);

  // the buyer answers the challenge on the sandbox (no completion call, no hosted page): the first delivery of
  // the succeeded event fails (503) and the sandbox retries it
  failNext.set("payment_intent.succeeded", 1);
  const executed = sandbox.executed();
  await answerSandboxChallenge(pi.id, true);
  await sandbox.webhooksSettled();
  const succeeded = eventsOf(pi.id).filter((r) => r.event.type === "payment_intent.succeeded");
  assert.deepEqual(
    succeeded.map((r) => r.status),
    [503, 200],
  );
  assert.equal(succeeded[0]!.event.id, succeeded[1]!.event.id, "a retry is the same event");
  assert.deepEqual(succeeded[1]!.event.request, { id: null, idempotency_key: null });
  const delivery = sandbox.deliveries().find((d) => d.eventId === succeeded[0]!.event.id)!;
  assert.deepEqual(
    delivery.attempts.map((a) => a.status),
    [503, 200],
  );
  assert.equal(delivery.delivered, true);

  const done = await statusOf(store, c.id);
  assert.equal(done.status, "completed");
  assert.ok(done.order?.id);
  const db = await getDb();
  assert.equal((await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } })).paymentRef, pi.id);
  assert.equal((await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } })).status, "succeeded");

  // the same delivery again (Stripe may deliver an event more than once): acknowledged as a duplicate
  const again = await forward(succeeded[1]!.path, succeeded[1]!.headers, succeeded[1]!.raw);
  assert.deepEqual(again, { status: 200, body: { received: true, duplicate: true } });
  assert.equal(await orderCount(c.id), 1);
  assert.equal(sandbox.executed(), executed, "nothing charged again");
  assert.equal(intentOf(c.id).status, "succeeded");
});

test("a card that succeeds at once: its success event arrives while the completion is finishing and waits for it; one order, and the provider is not asked for the card", async () => {
  const c = await readyCheckout(store, sock.id);
  const paid = await completeRest(store, c, "pm_card_visa");
  assert.equal(paid.body.status, "completed", paid.text);
  await sandbox.webhooksSettled();
  const pi = intentOf(c.id);
  const [delivery, ...more] = eventsOf(pi.id).filter((r) => r.event.type === "payment_intent.succeeded");
  assert.equal(more.length, 0);
  assert.equal(delivery?.status, 200);
  // on PostgreSQL the event reaches the route while the completion's finisher is at the database; on PGlite (in
  // this process, one connection) the completion's statements mostly keep the event loop until it has finished, so
  // the event may find the order already placed instead: either way nothing is asked of the provider
  if (process.env.DATABASE_URL) {
    assert.equal(
      chargeUnderWayAtDelivery.get(pi.id),
      true,
      "the event came while the completion was finishing",
    );
  }
  const sql = statementsAtDelivery.get(pi.id) ?? [];
  if (chargeUnderWayAtDelivery.get(pi.id)) {
    assert.ok(
      sql.some((s) => /INSERT INTO stripe_webhook_events/.test(s)),
      sql.join("\n"),
    );
  }
  if (chargeUnderWayAtClaim.get(pi.id)) {
    // the completion it waited for placed the order with this very payment: the event is claimed, and nothing of
    // the payment is read or written again (the finisher would only have found that order)
    assert.deepEqual(
      sql.filter((s) => /payment_attempts|card_payments|orders|checkout_sessions/.test(s)),
      [],
      "no statement about the payment",
    );
  } else {
    // the completion had finished as the route asked: the finisher found its order, and wrote nothing
    assert.deepEqual(
      sql.filter(
        (s) => /payment_attempts|card_payments|orders|checkout_sessions/.test(s) && !/^\s*SELECT/i.test(s),
      ),
      [],
      "nothing about the payment written",
    );
  }
  assert.equal(sandbox.retrievals(pi.id), 0, "the card came with the confirmation: nothing asked afterwards");
  assert.equal(await orderCount(c.id), 1);
  const attempt = await (await getDb()).paymentAttempt.findUniqueOrThrow({ where: { providerRef: pi.id } });
  assert.deepEqual([attempt.cardBrand, attempt.cardLast4], ["visa", "4242"]);
});

test("MCP complete_checkout escalates; the challenge's event, delivered twice at once, places one order", async () => {
  const c = await readyCheckout(store, sock.id);
  const result = await client.callTool({
    name: "complete_checkout",
    arguments: {
      meta: { "ucp-agent": { profile: signedProfile }, "idempotency-key": randomUUID() },
      id: c.id,
      checkout: await completion(store, c, "pm_card_threeDSecure2Required"),
    },
  });
  assert.equal((result.structuredContent as Checkout).status, "requires_escalation", JSON.stringify(result));
  await sandbox.webhooksSettled();
  const pi = intentOf(c.id);
  deliverTwiceAtOnce = true;
  try {
    await answerSandboxChallenge(pi.id, true);
    await sandbox.webhooksSettled();
  } finally {
    deliverTwiceAtOnce = false;
  }
  const deliveries = eventsOf(pi.id).filter((r) => r.event.type === "payment_intent.succeeded");
  assert.equal(deliveries.length, 2);
  assert.deepEqual(
    deliveries.map((d) => d.body).sort((a, b) => Object.keys(a).length - Object.keys(b).length),
    [{ received: true }, { received: true, duplicate: true }],
  );
  assert.equal(await orderCount(c.id), 1);
  assert.equal((await statusOf(store, c.id)).status, "completed");
});

test("a failed 3-DS challenge sends payment_intent.payment_failed: the decline is recorded, no order", async () => {
  const c = await readyCheckout(store, sock.id);
  assert.equal(
    (await completeRest(store, c, "pm_card_threeDSecure2Required")).body.status,
    "requires_escalation",
  );
  const pi = intentOf(c.id);
  await answerSandboxChallenge(pi.id, false);
  await sandbox.webhooksSettled();
  const failed = eventsOf(pi.id).filter((r) => r.event.type === "payment_intent.payment_failed");
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.status, 200);
  const db = await getDb();
  const payment = await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } });
  assert.equal(payment.status, "declined");
  assert.equal(payment.attempt, 2, "the next completion is a new attempt");
  assert.equal(await orderCount(c.id), 0);
  // so completing again with the same card makes a new PaymentIntent rather than replaying the failed one
  const again = await completeRest(store, c, "pm_card_threeDSecure2Required");
  assert.equal(again.body.status, "requires_escalation", again.text);
  const intents = sandbox.paymentIntents().filter((p) => p.metadata.checkout_id === c.id);
  assert.deepEqual(
    intents.map((p) => [p.id === pi.id, p.status]),
    [
      [true, "requires_payment_method"],
      [false, "requires_action"],
    ],
  );
});

test("a tampered event, a forged signature or a stale timestamp is refused (400) and places nothing", async () => {
  const c = await readyCheckout(store, sock.id);
  assert.equal(
    (await completeRest(store, c, "pm_card_threeDSecure2Required")).body.status,
    "requires_escalation",
  );
  await sandbox.webhooksSettled();
  const pi = intentOf(c.id);
  const [action] = eventsOf(pi.id);
  assert.equal(action?.event.type, "payment_intent.requires_action");
  // the genuine requires_action event turned into a "succeeded" one under its original signature
  const forged = {
    ...action.event,
    id: `evt_${randomUUID().replaceAll("-", "")}`,
    type: "payment_intent.succeeded",
    data: { object: { ...action.event.data.object, status: "succeeded", next_action: null } },
  };
  const forgedRaw = JSON.stringify(forged, null, 2);
  const url = action.path;
  const sign = (raw: string, secret: string, t = Math.floor(Date.now() / 1000)) =>
    stripeSignatureHeader(raw, secret, t);
  const tries = [
    { name: "body changed after signing", raw: forgedRaw, signature: action.headers["stripe-signature"]! },
    { name: "signed with another secret", raw: forgedRaw, signature: sign(forgedRaw, "whsec_attacker") },
    {
      name: "v1 digest altered",
      raw: forgedRaw,
      signature: sign(forgedRaw, SANDBOX_WEBHOOK_SECRET).replace(/.$/, (d) => (d === "0" ? "1" : "0")),
    },
    {
      name: "timestamp outside Stripe's 5 minute tolerance",
      raw: forgedRaw,
      signature: sign(forgedRaw, SANDBOX_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 600),
    },
    { name: "no signature", raw: forgedRaw, signature: "" },
  ];
  for (const t of tries) {
    const answer = await forward(
      url,
      { "content-type": "application/json", "stripe-signature": t.signature },
      t.raw,
    );
    assert.equal(answer.status, 400, t.name);
  }
  const db = await getDb();
  assert.equal(await db.stripeWebhookEvent.count({ where: { id: forged.id } }), 0);
  assert.equal(await orderCount(c.id), 0);
  assert.equal((await statusOf(store, c.id)).status, "requires_escalation");
  assert.equal(intentOf(c.id).status, "requires_action", "the provider state is untouched");
});

test("one endpoint per store, registered through the SDK; another store's PaymentIntent events never reach it", async () => {
  const c = await readyCheckout(other, mug.id);
  const paid = await completeRest(other, c, "pm_card_visa");
  assert.equal(paid.body.status, "completed", paid.text);
  // a PaymentIntent of no store of ours (made directly on the sandbox through the SDK)
  const { host, port, protocol } = sandbox;
  const direct = new Stripe(SANDBOX_SECRET_KEY, { host, port, protocol });
  const stray = await direct.paymentIntents.create({
    amount: 500,
    currency: "usd",
    payment_method: "pm_card_visa",
    confirm: true,
    metadata: { store: "not-a-store-of-ours", checkout_id: "chk_none" },
  });
  await sandbox.webhooksSettled();

  const endpoints = sandbox.webhookEndpoints();
  for (const s of [store, other]) {
    const mine = endpoints.filter((e) => e.metadata.store === s.slug);
    assert.equal(mine.length, 1, `one endpoint for ${s.slug} after several charges`);
    assert.equal(mine[0]!.url, `${forwarderUrl}/s/${s.slug}/stripe/webhook`);
    assert.deepEqual(mine[0]!.enabled_events, [...SANDBOX_EVENT_TYPES]);
    assert.equal(mine[0]!.secret, SANDBOX_WEBHOOK_SECRET);
  }
  // every delivery went to the endpoint of the PaymentIntent's own store
  const otherPi = intentOf(c.id);
  const all = received.map((r) => ({ path: r.path, event: JSON.parse(r.raw) as SandboxEvent }));
  assert.ok(all.length > 0);
  for (const r of all) assert.equal(r.path, `/s/${r.event.data.object.metadata.store}/stripe/webhook`);
  assert.deepEqual(
    all.filter((r) => r.event.data.object.id === otherPi.id).map((r) => [r.path, r.event.type]),
    [[`/s/${other.slug}/stripe/webhook`, "payment_intent.succeeded"]],
  );
  assert.equal(
    all.filter(
      (r) =>
        r.path === `/s/${store.slug}/stripe/webhook` && r.event.data.object.metadata.store !== store.slug,
    ).length,
    0,
  );
  const strayEvent = sandbox.events().find((e) => e.data.object.id === stray.id);
  assert.equal(strayEvent?.pending_webhooks, 0, "no endpoint for that store");
  assert.equal(all.filter((r) => r.event.data.object.id === stray.id).length, 0);
  // the webhook raced the completion that charged: still one order
  assert.equal(await orderCount(c.id), 1);
});
