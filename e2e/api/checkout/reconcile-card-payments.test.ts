import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { JWK } from "jose";
import Stripe from "stripe";

import { reconcileCardPayments } from "@/lib/checkout/completion/reconcile-payments";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { answerSandboxChallenge } from "@/lib/payments/card/sandbox-client";
import { SANDBOX_SECRET_KEY, stripeSandbox, type StripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { connectMcpClient } from "../../helpers/mcp-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, totalOf, type Checkout } from "./helpers";

// The card payment reconciliation sweep: a payment whose provider state is ahead of ours gets its
// order from the PaymentIntent — never a second charge. Sandbox webhooks are off in this file (the default for
// in-process tests), so only the sweep can finish these payments. "Crashed" states are the exact database rows a
// completion leaves when the process dies at the crash-test fault points (scripts/crash-test-card.ts kills real
// processes there), with the charge made on the sandbox through the official SDK.

let store: Store;
let otherStore: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };
let sandbox: StripeSandbox;
let stripe: Stripe;

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore();
  otherStore = await seedStore();
  sock = (await seedProduct(store, { variants: [{ priceMinor: 900, inventory: 100 }] })).variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
  sandbox = await stripeSandbox();
  stripe = new Stripe(SANDBOX_SECRET_KEY, {
    host: sandbox.host,
    port: sandbox.port,
    protocol: sandbox.protocol,
  });
});
after(closeTestDatabase);

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

/** Past the 2 minute grace period. */
const later = () => new Date(Date.now() + 3 * 60_000);

const readyCheckout = async (variantId = sock.id, quantity = 1) => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: variantId }, quantity }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.status, "ready_for_complete");
  return created.body;
};

const complete = async (c: Checkout, token: string) =>
  rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions/${c.id}/complete`, {
    headers: headers(),
    body: {
      payment: {
        instruments: [
          { handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token } },
        ],
      },
      ap2: {
        checkout_mandate: await signCheckoutMandate(mandateTerms(c, store.slug), {
          privateJwk: agentKey.privateJwk,
          kid: agentKey.kid,
          exp: Math.floor(Date.now() / 1000) + 600,
        }),
      },
    },
  });

/** 3-DS escalation through a real completion: the PaymentIntent is recorded as requires_action. */
const escalated = async () => {
  const c = await readyCheckout();
  const res = await complete(c, "pm_card_threeDSecure2Required");
  assert.equal(res.body.status, "requires_escalation", res.text);
  return { c, pi: intentsFor(c.id)[0]! };
};

/**
 * The rows a completion leaves when its process dies right after Stripe charged: the session held in
 * complete_in_progress and the card payment either recorded as succeeded (crash-after-charge) or still pending
 * with no PaymentIntent id (crash-after-provider). The charge itself is made on the sandbox through the SDK.
 */
const crashedAfterCharge = async (recorded: boolean, c?: Checkout) => {
  c ??= await readyCheckout();
  const amount = totalOf(c, "total")!;
  const pi = await stripe.paymentIntents.create(
    {
      amount,
      currency: c.currency.toLowerCase(),
      payment_method: "pm_card_visa",
      confirm: true,
      metadata: { checkout_id: c.id, store: store.slug },
    },
    { idempotencyKey: `acs-${c.id}-a1-test` },
  );
  const db = await getDb();
  await db.checkoutSession.update({
    where: { id: c.id },
    data: { status: "complete_in_progress", version: { increment: 1 } },
  });
  await db.cardPayment.create({
    data: {
      checkoutId: c.id,
      storeId: store.id,
      status: recorded ? "succeeded" : "pending",
      paymentIntentId: recorded ? pi.id : null,
      amount,
      currency: c.currency,
    },
  });
  return { c, pi };
};

const intentsFor = (checkoutId: string) =>
  sandbox.paymentIntents().filter((p) => p.metadata.checkout_id === checkoutId);
const orderOf = async (checkoutId: string) => (await getDb()).order.findUnique({ where: { checkoutId } });
const sweep = async (now = later()) => reconcileCardPayments({ now, storeId: store.id });
const resultFor = (results: Awaited<ReturnType<typeof sweep>>, checkoutId: string) =>
  results.filter((r) => r.checkoutId === checkoutId);

test("crash after the charge (PaymentIntent recorded, no order): the sweep places one order, charges nothing; a retry returns it", async () => {
  const { c, pi } = await crashedAfterCharge(true);
  assert.deepEqual(resultFor(await sweep(new Date()), c.id), [], "within the grace period: left alone");
  const executed = sandbox.executed();
  const results = resultFor(await sweep(), c.id);
  const order = await orderOf(c.id);
  assert.ok(order);
  assert.deepEqual(results, [
    {
      checkoutId: c.id,
      store: store.slug,
      paymentIntentId: pi.id,
      result: "order_placed",
      orderId: order.id,
    },
  ]);
  assert.equal(order.paymentRef, pi.id);
  assert.equal(order.handlerId, "svc.card");
  assert.equal(sandbox.executed(), executed, "no confirmation ran at the provider");
  assert.deepEqual(resultFor(await sweep(), c.id), [], "a completed checkout is not swept again");
  // the agent's retry finds the completed checkout and its order: no new PaymentIntent
  const retried = await complete(c, "pm_card_visa");
  assert.equal(retried.body.status, "completed", retried.text);
  assert.equal(retried.body.order?.id, order.id);
  assert.equal(intentsFor(c.id).length, 1);
  assert.equal(sandbox.executed(), executed);
  assert.equal(await (await getDb()).order.count({ where: { checkoutId: c.id } }), 1);
});

test("crash right after the provider answered (no PaymentIntent id recorded): found by metadata.checkout_id, one order", async () => {
  const { c, pi } = await crashedAfterCharge(false);
  const executed = sandbox.executed();
  const results = resultFor(await sweep(), c.id);
  assert.equal(results.length, 1);
  assert.equal(results[0]!.result, "order_placed", JSON.stringify(results));
  assert.equal(results[0]!.paymentIntentId, pi.id);
  const db = await getDb();
  assert.equal((await orderOf(c.id))?.paymentRef, pi.id);
  assert.equal(
    (await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } })).paymentIntentId,
    pi.id,
  );
  assert.equal(sandbox.executed(), executed);
  assert.equal(intentsFor(c.id).length, 1);
});

test("a held session with nothing at the provider is reported not_found and left alone", async () => {
  const c = await readyCheckout();
  const db = await getDb();
  await db.checkoutSession.update({ where: { id: c.id }, data: { status: "complete_in_progress" } });
  await db.cardPayment.create({
    data: { checkoutId: c.id, storeId: store.id, status: "pending", amount: 900, currency: "USD" },
  });
  const results = resultFor(await sweep(), c.id);
  assert.deepEqual(
    results.map((r) => r.result),
    ["not_found"],
  );
  assert.equal(await orderOf(c.id), null);
});

test("3-DS answered on the provider's page, webhook and return both lost: the sweep finishes the order", async () => {
  const { c, pi } = await escalated();
  await answerSandboxChallenge(pi.id, true);
  const executed = sandbox.executed();
  const results = resultFor(await sweep(), c.id);
  assert.equal(results[0]?.result, "order_placed", JSON.stringify(results));
  const read = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${c.id}`, {
    headers: { "x-api-key": key },
  });
  assert.equal(read.body.status, "completed");
  assert.equal(read.body.order?.id, results[0]!.orderId);
  assert.equal(sandbox.executed(), executed);
  // the agent sees the same on MCP (official SDK client)
  const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
  try {
    const viaMcp = await client.callTool({
      name: "get_checkout",
      arguments: { meta: { "ucp-agent": { profile: signedProfile } }, id: c.id },
    });
    const body = viaMcp.structuredContent as Checkout;
    assert.equal(body.status, "completed", JSON.stringify(viaMcp));
    assert.equal(body.order?.id, results[0]!.orderId);
  } finally {
    await client.close();
  }
});

test("a payment still waiting for 3-DS stays open: no order, the session stays requires_escalation", async () => {
  const { c, pi } = await escalated();
  const results = resultFor(await sweep(), c.id);
  assert.deepEqual(
    results.map((r) => [r.result, r.detail]),
    [["open", "requires_action"]],
  );
  assert.equal(await orderOf(c.id), null);
  const read = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${c.id}`, {
    headers: { "x-api-key": key },
  });
  assert.equal(read.body.status, "requires_escalation");
  assert.equal(intentsFor(c.id)[0]!.status, "requires_action");
  assert.equal(intentsFor(c.id)[0]!.id, pi.id);
});

test("a failed 3-DS challenge is recorded as a decline: the next attempt gets a new provider key", async () => {
  const { c, pi } = await escalated();
  await answerSandboxChallenge(pi.id, false);
  const results = resultFor(await sweep(), c.id);
  assert.equal(results[0]?.result, "declined");
  const payment = await (await getDb()).cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } });
  assert.equal(payment.status, "declined");
  assert.equal(payment.attempt, 2);
  assert.equal(await orderOf(c.id), null);
  assert.deepEqual(resultFor(await sweep(), c.id), [], "a recorded decline is not swept again");
});

test("a refunded payment is never turned into an order", async () => {
  const { c, pi } = await crashedAfterCharge(true);
  await stripe.refunds.create({ payment_intent: pi.id });
  await (await getDb()).cardPayment.update({ where: { checkoutId: c.id }, data: { status: "refunded" } });
  assert.deepEqual(resultFor(await sweep(), c.id), []);
  assert.equal(await orderOf(c.id), null);
});

test("the last units sold meanwhile: the sweep refunds the charge once and places nothing", async () => {
  const scarce = (await seedProduct(store, { variants: [{ priceMinor: 1500, inventory: 1 }] })).variants[0]!;
  const c = await readyCheckout(scarce.id, 1);
  const { pi } = await crashedAfterCharge(true, c);
  await (await getDb()).variant.update({ where: { id: scarce.id }, data: { inventory: 0 } });
  const results = resultFor(await sweep(), c.id);
  assert.equal(results[0]?.result, "refunded", JSON.stringify(results));
  assert.equal(await orderOf(c.id), null);
  const refundedPi = sandbox.paymentIntents().find((p) => p.id === pi.id)!;
  assert.equal(refundedPi.amount_refunded, refundedPi.amount);
  const db = await getDb();
  assert.equal((await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } })).status, "refunded");
  assert.equal(
    (await db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } })).status,
    "ready_for_complete",
  );
  assert.deepEqual(resultFor(await sweep(), c.id), []);
});

test("a refund interrupted by a crash (status refunding) is finished by the sweep with the same key: refunded once, never ordered", async () => {
  const db = await getDb();
  for (const providerRefunded of [true, false]) {
    const { c, pi } = await crashedAfterCharge(true);
    // the process wrote its intent, then died — after the provider refunded, or before it was asked
    await db.cardPayment.update({ where: { checkoutId: c.id }, data: { status: "refunding" } });
    if (providerRefunded) {
      await stripe.refunds.create({ payment_intent: pi.id }, { idempotencyKey: `acs-refund-${pi.id}` });
    }
    const results = resultFor(await sweep(), c.id);
    assert.deepEqual(
      results.map((r) => r.result),
      ["refunded"],
      JSON.stringify(results),
    );
    assert.equal(await orderOf(c.id), null, "never ordered");
    const [intent] = intentsFor(c.id);
    assert.equal(intent?.amount_refunded, intent?.amount, "refunded exactly once, in full");
    assert.equal(
      (await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } })).status,
      "refunded",
    );
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } })).status,
      "ready_for_complete",
    );
  }
});

test("the agent's retry after an interrupted refund finishes that refund, then pays with a new attempt: one order", async () => {
  const db = await getDb();
  const { c, pi } = await crashedAfterCharge(true);
  await db.cardPayment.update({ where: { checkoutId: c.id }, data: { status: "refunding" } });
  const retried = await complete(c, "pm_card_visa");
  assert.equal(retried.body.status, "completed", retried.text);
  const old = intentsFor(c.id).find((p) => p.id === pi.id);
  assert.equal(old?.amount_refunded, old?.amount, "the interrupted refund went through");
  const order = await orderOf(c.id);
  assert.ok(order);
  assert.notEqual(order.paymentRef, pi.id, "the order is paid by the new attempt's PaymentIntent");
  assert.equal(intentsFor(c.id).filter((p) => p.status === "succeeded" && p.amount_refunded === 0).length, 1);
});

test("--store scope and the batch bound: another store's sweep does not touch this store's payments", async () => {
  const { c } = await crashedAfterCharge(true);
  assert.deepEqual(
    (await reconcileCardPayments({ now: later(), storeId: otherStore.id })).filter(
      (r) => r.checkoutId === c.id,
    ),
    [],
  );
  assert.equal(await orderOf(c.id), null);
  const batch = await reconcileCardPayments({ now: later(), storeId: store.id, limit: 1 });
  assert.equal(batch.length, 1);
  // the next sweeps reach it (oldest first, checked payments are touched and move to the back)
  for (let i = 0; i < 5 && !(await orderOf(c.id)); i++) await sweep();
  assert.ok(await orderOf(c.id));
});
