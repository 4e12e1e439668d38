import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { JWK } from "jose";

import { continueUrlOf } from "@/lib/checkout/checkout-record";
import { chargeKey } from "@/lib/checkout/completion/complete-checkout";
import { getPaymentPage } from "@/lib/checkout/hosted-payment";
import { getReceiptOfPaidLink } from "@/lib/checkout/payment-receipt";
import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { assertCheckoutSchema, BUYER, SEED_ADDRESS, totalOf, type Checkout } from "./helpers";

// The hosted payment page behind continue_url in test mode — the sandbox 3-DS challenge and card
// form, driven through the page's data function and its form route in-process (the browser test is
// e2e/ui/hosted-payment.spec.ts) — and completion after a crash between the charge and the order.

let store: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore({ name: "Harbor Goods" });
  sock = (await seedProduct(store, { title: "Sock", variants: [{ priceMinor: 1200, inventory: 10 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 300 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(closeTestDatabase);

type Escalated = Checkout & { continue_url?: string };
const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const readyCheckout = async () => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: sock.id }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  return created.body;
};

const completeWith = async (c: Checkout, token?: string) => {
  const mandate = await signCheckoutMandate(mandateTerms(c, store.slug), {
    privateJwk: agentKey.privateJwk,
    kid: agentKey.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const instrument = {
    handler_id: "svc.card",
    selected: true,
    ...(token ? { credential: { type: "stripe_token", token } } : {}),
  };
  return rest<Escalated>("POST", `/s/${store.slug}/checkout-sessions/${c.id}/complete`, {
    headers: headers(),
    body: { payment: { instruments: [instrument] }, ap2: { checkout_mandate: mandate } },
  });
};

const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);

const submit = async (continueUrl: string, form: Record<string, string>) => {
  const response = await callApp("POST", `${new URL(continueUrl).pathname}/submit`, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    rawBody: new URLSearchParams(form).toString(),
  });
  assert.equal(response.status, 303);
  return new URL(response.headers.get("location") ?? "").searchParams.get("result");
};

const read = (id: string) =>
  rest<Escalated>("GET", `/s/${store.slug}/checkout-sessions/${id}`, { headers: { "x-api-key": key } });

const intentsFor = async (checkoutId: string) =>
  (await stripeSandbox()).paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId);

describe("hosted payment page (test mode)", () => {
  test("3-DS: the page shows store, items and total; approving completes the session with one order; the link is dropped", async () => {
    const c = await readyCheckout();
    const escalated = await completeWith(c, "pm_card_threeDSecure2Required");
    assert.equal(escalated.body.status, "requires_escalation", escalated.text);
    const url = escalated.body.continue_url!;
    const page = await getPaymentPage(store.slug, tokenOf(url));
    assert.ok(page);
    assert.equal(page.storeName, "Harbor Goods");
    assert.equal(page.step, "challenge");
    assert.deepEqual(page.lines, [{ title: "Sock", quantity: 1, amountMinor: 1200, imageUrl: null }]);
    assert.equal(page.totalMinor, totalOf(c, "total"));
    // another store's slug does not open it
    assert.equal(await getPaymentPage("other-store", tokenOf(url)), null);

    assert.equal(await submit(url, { action: "approve" }), "paid");
    const done = await read(c.id);
    assertCheckoutSchema(done.body);
    assert.equal(done.body.status, "completed");
    assert.ok(done.body.order?.id);
    assert.equal(done.body.continue_url, undefined, "the hosted link is gone once terminal");
    assert.equal(await getPaymentPage(store.slug, tokenOf(url)), null);
    // a second post (a double click, a resent form) charges nothing more and lands on the bare link, which shows
    // the receipt
    assert.equal(await submit(url, { action: "approve" }), null);
    assert.equal((await getReceiptOfPaidLink(store.slug, tokenOf(url)))?.orderId, done.body.order?.id);
    assert.equal((await intentsFor(c.id)).length, 1);
    assert.equal(await (await getDb()).order.count({ where: { checkoutId: c.id } }), 1);
  });

  test("the items sell out while the buyer passes 3-DS: the payment is refunded once, no order, the link closes", async () => {
    const db = await getDb();
    const scarce = (
      await seedProduct(store, { title: "Last cap", variants: [{ priceMinor: 2500, inventory: 1 }] })
    ).variants[0]!;
    const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: headers(),
      body: {
        line_items: [{ item: { id: scarce.id }, quantity: 1 }],
        buyer: BUYER,
        shipping_address: SEED_ADDRESS,
        shipping_method_id: "standard",
      },
    });
    const escalated = await completeWith(created.body, "pm_card_threeDSecure2Required");
    assert.equal(escalated.body.status, "requires_escalation", escalated.text);
    // someone else buys the last unit meanwhile
    await db.variant.update({ where: { id: scarce.id }, data: { inventory: 0 } });
    const url = escalated.body.continue_url!;
    assert.equal(await submit(url, { action: "approve" }), "refunded");
    const [pi] = await intentsFor(created.body.id);
    assert.equal(pi?.status, "succeeded");
    assert.equal(pi?.amount_refunded, pi?.amount, "the whole charge went back");
    assert.equal(await db.order.count({ where: { checkoutId: created.body.id } }), 0);
    // the session is open again (re-priced on read: the item is out of stock now)
    const after = await read(created.body.id);
    assert.equal(after.body.status, "incomplete", after.text);
    assert.equal(after.body.continue_url, undefined);
    assert.equal(await getPaymentPage(store.slug, tokenOf(url)), null);
    assert.equal(
      (await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: created.body.id } })).status,
      "refunded",
    );
  });

  test("failed 3-DS then a declined card keep the session escalated; a good card pays", async () => {
    const c = await readyCheckout();
    const url = (await completeWith(c, "pm_card_threeDSecure2Required")).body.continue_url!;
    assert.equal(await submit(url, { action: "fail" }), "declined");
    assert.equal((await getPaymentPage(store.slug, tokenOf(url)))?.step, "card");
    assert.equal(await submit(url, { action: "card", payment_method: "pm_card_chargeDeclined" }), "declined");
    assert.equal((await read(c.id)).body.status, "requires_escalation");
    assert.equal(await submit(url, { action: "card", payment_method: "not a pm" }), "invalid");
    assert.equal(await submit(url, { action: "card", payment_method: "pm_card_visa" }), "paid");
    assert.equal((await read(c.id)).body.status, "completed");
  });

  test("no card token: the page collects one (here a 3-DS card, then the challenge)", async () => {
    const c = await readyCheckout();
    const url = (await completeWith(c)).body.continue_url!;
    assert.equal((await getPaymentPage(store.slug, tokenOf(url)))?.step, "card");
    assert.equal(
      await submit(url, { action: "card", payment_method: "pm_card_threeDSecure2Required" }),
      "challenge",
    );
    assert.equal((await getPaymentPage(store.slug, tokenOf(url)))?.step, "challenge");
    assert.equal(await submit(url, { action: "approve" }), "paid");
    assert.equal((await read(c.id)).body.status, "completed");
  });
});

describe("crash between charge and order", () => {
  test("the retry finds the succeeded PaymentIntent by its key and places the order without a second charge", async () => {
    const c = await readyCheckout();
    const amount = totalOf(c, "total")!;
    // what a process that died right after the charge left behind: a succeeded PaymentIntent, no order
    // (the session held with its continue token, the charge made with the key and return_url completion uses)
    const sandbox = await stripeSandbox();
    const continueToken = randomUUID().replaceAll("-", "");
    await (
      await getDb()
    ).checkoutSession.update({
      where: { id: c.id },
      data: { status: "complete_in_progress", continueToken },
    });
    const charged = await stripeCardRail.charge({
      store,
      checkoutId: c.id,
      amount,
      currency: c.currency,
      token: "pm_card_visa",
      idempotencyKey: chargeKey(c.id, 1, amount, "pm_card_visa"),
      returnUrl: continueUrlOf(store, getBaseUrl(), continueToken),
    });
    assert.equal(charged.kind, "succeeded");
    const executed = sandbox.executed();
    const retried = await completeWith(c, "pm_card_visa");
    assert.equal(retried.body.status, "completed", retried.text);
    assert.equal(sandbox.executed(), executed, "no new confirmation at the provider");
    const intents = await intentsFor(c.id);
    assert.equal(intents.length, 1);
    const order = await (await getDb()).order.findUniqueOrThrow({ where: { checkoutId: c.id } });
    assert.equal(order.paymentRef, charged.paymentRef);
  });
});
