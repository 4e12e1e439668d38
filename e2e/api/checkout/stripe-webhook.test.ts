import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import type { JWK } from "jose";
import Stripe from "stripe";

import { whileCharging } from "@/lib/checkout/completion/charges-under-way";
import { finishPayment } from "@/lib/checkout/completion/finish-payment";
import { SANDBOX_WEBHOOK_SECRET } from "@/lib/checkout/completion/stripe-webhook";
import { getDb } from "@/lib/config/db";
import { onSqlStatement } from "@/lib/config/sql-observer";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { answerSandboxChallenge } from "@/lib/payments/card/sandbox-client";
import { SANDBOX_SECRET_KEY, stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, readJson, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// Inbound Stripe webhooks: signature checked with the SDK's constructEvent before anything else,
// payment_intent.succeeded finishes the order of a charge that succeeded outside a completion call, each event
// id handled once. Events are signed here with the SDK's own test-header helper and the sandbox secret.

let store: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };
const stripe = new Stripe(SANDBOX_SECRET_KEY);

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore();
  sock = (await seedProduct(store, { variants: [{ priceMinor: 800, inventory: 50 }] })).variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(closeTestDatabase);

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const send = async (payload: string, signature: string | null) =>
  readJson<{ received?: boolean; duplicate?: boolean; error?: string }>(
    await callApp("POST", `/s/${store.slug}/stripe/webhook`, {
      headers: {
        "content-type": "application/json",
        ...(signature ? { "stripe-signature": signature } : {}),
      },
      rawBody: payload,
    }),
  );

const eventFor = (type: string, object: unknown, id = `evt_${randomUUID().replaceAll("-", "")}`) =>
  JSON.stringify({ id, object: "event", type, api_version: "2026-01-28", created: 1, data: { object } });

const sign = (payload: string, secret = SANDBOX_WEBHOOK_SECRET) =>
  stripe.webhooks.generateTestHeaderString({ payload, secret });

test("bad or missing signatures are refused before anything is read; nothing changes", async () => {
  const payload = eventFor("payment_intent.succeeded", { id: "pi_x", object: "payment_intent" });
  assert.equal((await send(payload, null)).status, 400);
  assert.equal((await send(payload, sign(payload, "whsec_other"))).status, 400);
  assert.equal((await send(`${payload} `, sign(payload))).status, 400, "body changed after signing");
  // scoped to this event: on PostgreSQL other test files share the table
  const { id } = JSON.parse(payload) as { id: string };
  assert.equal(await (await getDb()).stripeWebhookEvent.count({ where: { id } }), 0);
});

/**
 * A checkout whose card payment needed 3-DS (the completion answered requires_escalation) and whose buyer then
 * approved it at the provider, outside any completion call: its PaymentIntent has succeeded, no order yet.
 */
const approvedOutsideCompletion = async () => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: sock.id }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  const c = created.body;
  const mandate = await signCheckoutMandate(mandateTerms(c, store.slug), {
    privateJwk: agentKey.privateJwk,
    kid: agentKey.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const escalated = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions/${c.id}/complete`, {
    headers: headers(),
    body: {
      payment: {
        instruments: [
          {
            handler_id: "svc.card",
            selected: true,
            credential: { type: "stripe_token", token: "pm_card_threeDSecure2Required" },
          },
        ],
      },
      ap2: { checkout_mandate: mandate },
    },
  });
  assert.equal(escalated.body.status, "requires_escalation", escalated.text);
  const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === c.id)!;
  await answerSandboxChallenge(pi.id, true);
  const succeeded = (await stripeSandbox()).paymentIntents().find((p) => p.id === pi.id)!;
  return { c, succeeded };
};

test("payment_intent.succeeded after 3-DS outside the API places the order once; a repeat is a duplicate", async () => {
  const { c, succeeded } = await approvedOutsideCompletion();
  const pi = succeeded;
  assert.equal(succeeded.status, "succeeded");

  const ignored = eventFor("charge.refunded", { id: "ch_1", object: "charge" });
  assert.deepEqual((await send(ignored, sign(ignored))).body, { received: true });

  const payload = eventFor("payment_intent.succeeded", succeeded);
  const first = await send(payload, sign(payload));
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body, { received: true });
  const read = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${c.id}`, {
    headers: { "x-api-key": key },
  });
  assert.equal(read.body.status, "completed");
  assert.ok(read.body.order?.id);
  const again = await send(payload, sign(payload));
  assert.deepEqual(again.body, { received: true, duplicate: true });
  // the same outcome in a new event (Stripe may send several) still gives one order, and asks the provider
  // nothing: the card is read only by the finisher that records the success
  const retrievedBefore = (await stripeSandbox()).retrievals(pi.id);
  assert.ok(retrievedBefore >= 1, "the event that placed the order read the card from the provider");
  const other = eventFor("payment_intent.succeeded", succeeded);
  assert.equal((await send(other, sign(other))).status, 200);
  assert.equal(
    (await stripeSandbox()).retrievals(pi.id),
    retrievedBefore,
    "a late event asks the provider nothing",
  );
  const db = await getDb();
  assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 1);
  assert.equal((await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } })).paymentRef, pi.id);
  // the receipt's card, read from the provider: the event itself never carries it
  const attempt = await db.paymentAttempt.findUniqueOrThrow({ where: { providerRef: pi.id } });
  assert.deepEqual([attempt.cardBrand, attempt.cardLast4], ["visa", "3220"]);
});

test("the same success delivered three times at once (8 runs): one order, and one finisher does the work while the others wait for it and find the order", async () => {
  for (let run = 0; run < 8; run++) {
    const { c, succeeded } = await approvedOutsideCompletion();
    const stockBefore = (await (await getDb()).variant.findUniqueOrThrow({ where: { id: sock.id } }))
      .inventory;
    // Stripe may send one outcome in several events; here they arrive together (on PGlite its one connection
    // already puts them in turn; on PostgreSQL the finishers would race for the order without waiting for each other)
    const transactions: string[] = [];
    const stop = onSqlStatement(({ sql }) => {
      // the order's transaction opens with the session's read that takes the stock (lib/orders/place-order.ts)
      if (/\bUPDATE variants\b/i.test(sql)) transactions.push(sql);
    });
    try {
      const answers = await Promise.all(
        [1, 2, 3].map(() => {
          const payload = eventFor("payment_intent.succeeded", succeeded);
          return send(payload, sign(payload));
        }),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
      );
    } finally {
      stop();
    }
    const db = await getDb();
    assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 1);
    assert.equal(
      transactions.length,
      1,
      `run ${run}: one order's transaction, which took the stock (no finisher lost a race for it)`,
    );
    const { inventory } = await db.variant.findUniqueOrThrow({ where: { id: sock.id } });
    assert.equal(inventory, stockBefore - 1, `run ${run}: one unit taken`);
  }
});

test("a success arriving while this process's completion of the checkout is finishing waits for it: one order, with the card the completion knows, and no call to the provider for the card", async () => {
  const { c, succeeded } = await approvedOutsideCompletion();
  const db = await getDb();
  const retrievedBefore = (await stripeSandbox()).retrievals(succeeded.id);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  // a completion's charge as completeCheckout runs it: the provider has answered with the card, and its finisher
  // runs when the gate opens
  const charging = whileCharging(c.id, async () => {
    await gate;
    return finishPayment(db, store, c.id, succeeded.id, {
      method: { kind: "card", brand: "mastercard", last4: "4444" },
    });
  });
  const payload = eventFor("payment_intent.succeeded", succeeded);
  let answered = false;
  const delivered = send(payload, sign(payload)).then((answer) => {
    answered = true;
    return answer;
  });
  await sleep(300);
  assert.equal(answered, false, "the event waits for the charge under way");
  assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 0);
  open();
  const [finished, answer] = await Promise.all([charging, delivered]);
  assert.equal(finished.result, "order_placed");
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body, { received: true });
  assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 1);
  assert.equal((await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } })).paymentRef, succeeded.id);
  assert.equal(
    (await stripeSandbox()).retrievals(succeeded.id),
    retrievedBefore,
    "the webhook asked the provider nothing",
  );
  const attempt = await db.paymentAttempt.findUniqueOrThrow({ where: { providerRef: succeeded.id } });
  assert.deepEqual([attempt.cardBrand, attempt.cardLast4], ["mastercard", "4444"]);
});

test("live store: set-stripe-keys validates and stores the webhook secret the route then verifies with", async () => {
  const { setStripeKeys } = await import("@/lib/stores/set-stripe-keys");
  const live = await seedStore({ mode: "live" });
  await assert.rejects(setStripeKeys(live.slug, { webhookSecret: "nope" }), /whsec_/);
  await assert.rejects(setStripeKeys(live.slug, { secretKey: "pk_live_abcdefgh" }), /sk_live_/);
  const payload = eventFor("charge.refunded", { id: "ch_2", object: "charge" });
  const post = async () =>
    (
      await callApp("POST", `/s/${live.slug}/stripe/webhook`, {
        headers: {
          "content-type": "application/json",
          "stripe-signature": sign(payload, "whsec_livesecret123"),
        },
        rawBody: payload,
      })
    ).status;
  assert.equal(await post(), 400, "no secret configured yet");
  await setStripeKeys(live.slug, { secretKey: "sk_live_abcdefgh12", webhookSecret: "whsec_livesecret123" });
  assert.equal(await post(), 200);
});
