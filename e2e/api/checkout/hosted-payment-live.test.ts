import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { JWK } from "jose";

import { getPaymentPage, returnFromProvider } from "@/lib/checkout/hosted-payment";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { setStripeKeys } from "@/lib/stores/set-stripe-keys";
import { startStripeSandbox, type StripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, totalOf, type Checkout } from "./helpers";

// The server side of the hosted payment page for LIVE stores: the page data hands Stripe.js the
// PaymentIntent's client secret and the store's publishable key (never the secret key); after the browser
// confirmed (here: the same form-encoded publishable-key call Stripe.js makes, sent to a second Stripe sandbox standing in for the live account),
// `refresh` and the 3-DS return read the provider's state and finish once; a PaymentIntent of another checkout
// is refused; a store without keys gets a clear state, never a 500. The browser itself is e2e/ui/
// hosted-payment-live.spec.ts.
//
// How a live store gets an escalated checkout here: live stores refuse agent profiles on private addresses
// (allowsPrivateFor), and this test's agent profile is on 127.0.0.1. So the real completion runs while the store
// is in test mode, with the sandbox PSP pointed (STRIPE_SANDBOX_URL) at the same sandbox instance that
// STRIPE_API_URL names for live calls; then the store is switched to live with its keys. The PaymentIntent,
// the card-payment row and the continue link are exactly what completion made — no hand-written payment state.

const SECRET_KEY = "sk_live_fakeaccount123";
const PUBLISHABLE_KEY = "pk_live_fakeaccount123";

let stripe: StripeSandbox;
let store: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };

before(async () => {
  stripe = await startStripeSandbox({ keys: { secret: [SECRET_KEY], publishable: [PUBLISHABLE_KEY] } });
  // getEnv() caches its first read, which prepareTestDatabase makes: set the URLs first
  process.env.STRIPE_API_URL = stripe.url;
  process.env.STRIPE_SANDBOX_URL = stripe.url;
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore({ name: "Lighthouse Supply" });
  sock = (await seedProduct(store, { title: "Sock", variants: [{ priceMinor: 1500, inventory: 20 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 300 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(async () => {
  await closeTestDatabase();
  await stripe.close();
});

type Escalated = Checkout & { continue_url?: string; order?: { id: string } };

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const setMode = async (mode: "test" | "live") =>
  (await getDb()).store.update({ where: { id: store.id }, data: { mode } });

/** A checkout the agent completed without a card token: requires_escalation with the hosted link (see above). */
const escalatedCheckout = async () => {
  await setMode("test");
  try {
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
    const c = created.body;
    const mandate = await signCheckoutMandate(mandateTerms(c, store.slug), {
      privateJwk: agentKey.privateJwk,
      kid: agentKey.kid,
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    const completed = await rest<Escalated>("POST", `/s/${store.slug}/checkout-sessions/${c.id}/complete`, {
      headers: headers(),
      body: {
        payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
        ap2: { checkout_mandate: mandate },
      },
    });
    assert.equal(completed.body.status, "requires_escalation", completed.text);
    const url = completed.body.continue_url!;
    return { c, url, token: url.slice(url.lastIndexOf("/") + 1) };
  } finally {
    await setMode("live");
  }
};

const intentOf = (checkoutId: string) => {
  const found = stripe.paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId);
  assert.equal(found.length, 1, "one PaymentIntent per checkout");
  return found[0]!;
};

/** What Stripe.js does in the browser on confirmPayment: the publishable key and the client secret, no secret key. */
const browserConfirm = async (clientSecret: string, cardNumber: string, returnUrl: string) => {
  const id = clientSecret.slice(0, clientSecret.indexOf("_secret_"));
  const response = await fetch(`${stripe.url}/v1/payment_intents/${id}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      key: PUBLISHABLE_KEY,
      client_secret: clientSecret,
      return_url: returnUrl,
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": cardNumber,
    }).toString(),
  });
  return (await response.json()) as {
    status?: string;
    next_action?: { redirect_to_url: { url: string } };
    error?: { code: string };
  };
};

const submit = async (continueUrl: string, form: Record<string, string>) => {
  const response = await callApp("POST", `${new URL(continueUrl).pathname}/submit`, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    rawBody: new URLSearchParams(form).toString(),
  });
  assert.equal(response.status, 303);
  return new URL(response.headers.get("location") ?? "").searchParams.get("result");
};

/** The checkout as the agent reads it over REST (in test mode for the read: the agent's profile is on loopback). */
const read = async (id: string) => {
  await setMode("test");
  try {
    return await rest<Escalated>("GET", `/s/${store.slug}/checkout-sessions/${id}`, {
      headers: { "x-api-key": key },
    });
  } finally {
    await setMode("live");
  }
};

const orders = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

const liveReady = async (token: string) => {
  const page = await getPaymentPage(store.slug, token);
  assert.ok(page?.live, "a live page");
  assert.equal(page.live.status, "ready", JSON.stringify(page.live));
  if (page.live.status !== "ready") throw new Error("unreachable");
  return { page, live: page.live };
};

describe("hosted payment page (live store, Stripe.js)", () => {
  before(async () => {
    await setStripeKeys(store.slug, { secretKey: SECRET_KEY, publishableKey: PUBLISHABLE_KEY });
  });

  test("the page gets the PaymentIntent's client secret and the publishable key, never the secret key; a good card confirmed in the browser then refresh → completed, one order, link gone", async () => {
    const { c, url, token } = await escalatedCheckout();
    const pi = intentOf(c.id);
    assert.equal(pi.amount, totalOf(c, "total"));
    const { page, live } = await liveReady(token);
    assert.equal(page.mode, "live");
    assert.equal(live.clientSecret, pi.client_secret);
    assert.equal(live.publishableKey, PUBLISHABLE_KEY);
    assert.equal(live.returnUrl, url, "Stripe returns the buyer to the page itself");
    assert.ok(!JSON.stringify(page).includes(SECRET_KEY), "the secret key never reaches the page");

    // before the buyer pays, a refresh changes nothing
    assert.equal(await submit(url, { action: "refresh" }), "open");
    assert.equal((await read(c.id)).body.status, "requires_escalation");
    // the sandbox-only steps do not exist on a live page
    assert.equal(await submit(url, { action: "card", payment_method: "pm_card_visa" }), "unavailable");
    assert.equal(await submit(url, { action: "approve" }), "unavailable");
    assert.equal(stripe.confirmations().secret, 0, "the server never confirmed a card itself");

    assert.equal((await browserConfirm(live.clientSecret, "4242424242424242", url)).status, "succeeded");
    assert.equal(await submit(url, { action: "refresh" }), "paid");
    const done = await read(c.id);
    assert.equal(done.body.status, "completed");
    assert.ok(done.body.order?.id);
    assert.equal(done.body.continue_url, undefined);
    assert.equal(await orders(c.id), 1);
    // the link is paid: a second post lands on the bare link (its receipt); a late return from the provider does
    // not place a second order
    assert.equal(await getPaymentPage(store.slug, token), null);
    assert.equal(await submit(url, { action: "refresh" }), null);
    assert.equal(await returnFromProvider(store.slug, token, pi.id), "gone");
    assert.equal(await orders(c.id), 1);
  });

  test("3-D Secure: the bank's redirect brings the buyer back with payment_intent; the server reads the provider's state and completes", async () => {
    const { c, url, token } = await escalatedCheckout();
    const { live } = await liveReady(token);
    const confirmed = await browserConfirm(live.clientSecret, "4000002760003184", live.returnUrl);
    assert.equal(confirmed.status, "requires_action");
    // the query string alone proves nothing: before the bank step the provider still says requires_action
    assert.equal(await returnFromProvider(store.slug, token, intentOf(c.id).id), "challenge");
    assert.equal((await read(c.id)).body.status, "requires_escalation");

    const bank = await fetch(confirmed.next_action!.redirect_to_url.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "outcome=approve",
      redirect: "manual",
    });
    const back = new URL(bank.headers.get("location") ?? "");
    assert.equal(`${back.origin}${back.pathname}`, url);
    assert.equal(back.searchParams.get("redirect_status"), "succeeded");
    assert.equal(back.searchParams.get("payment_intent_client_secret"), live.clientSecret);
    assert.equal(
      await returnFromProvider(store.slug, token, back.searchParams.get("payment_intent")!),
      "paid",
    );
    assert.equal((await read(c.id)).body.status, "completed");
    assert.equal(await orders(c.id), 1);
  });

  test("a PaymentIntent that belongs to another checkout is refused, even a succeeded one; nothing changes", async () => {
    const first = await escalatedCheckout();
    const second = await escalatedCheckout();
    const { live } = await liveReady(second.token);
    // the other checkout's payment succeeds at the provider
    assert.equal(
      (await browserConfirm(live.clientSecret, "4242424242424242", second.url)).status,
      "succeeded",
    );
    const othersIntent = intentOf(second.c.id).id;
    assert.equal(await returnFromProvider(store.slug, first.token, othersIntent), "mismatch");
    assert.equal(await returnFromProvider(store.slug, first.token, "pi_not-an-id'"), "mismatch");
    assert.equal(await returnFromProvider(store.slug, first.token, ""), "mismatch");
    assert.equal((await read(first.c.id)).body.status, "requires_escalation");
    assert.equal(await orders(first.c.id), 0);
    const payment = await (
      await getDb()
    ).cardPayment.findUniqueOrThrow({ where: { checkoutId: first.c.id } });
    assert.equal(payment.paymentIntentId, intentOf(first.c.id).id);
    assert.equal(payment.status, "requires_payment_method");
    // the second checkout finishes with its own PaymentIntent
    assert.equal(await returnFromProvider(store.slug, second.token, othersIntent), "paid");
  });

  test("a declined card keeps the session open with a message; another card then pays", async () => {
    const { c, url, token } = await escalatedCheckout();
    const { live } = await liveReady(token);
    assert.equal(
      (await browserConfirm(live.clientSecret, "4000000000000002", url)).error?.code,
      "card_declined",
    );
    assert.equal(await submit(url, { action: "refresh" }), "declined");
    assert.equal((await read(c.id)).body.status, "requires_escalation");
    assert.match((await getPaymentPage(store.slug, token))?.lastError ?? "", /declined/);
    assert.equal(await orders(c.id), 0);
    assert.equal((await browserConfirm(live.clientSecret, "4242424242424242", url)).status, "succeeded");
    assert.equal(await submit(url, { action: "refresh" }), "paid");
    assert.equal(await orders(c.id), 1);
  });
});

describe("hosted payment page (live store not ready)", () => {
  test("no publishable key (or no secret key): a clear not-configured state, no provider call, never a 500", async () => {
    const { c, url, token } = await escalatedCheckout();
    await setStripeKeys(store.slug, { secretKey: SECRET_KEY, publishableKey: "" });
    const page = await getPaymentPage(store.slug, token);
    assert.equal(page?.live?.status, "not_configured");
    assert.match(page.live.status === "not_configured" ? page.live.message : "", /not configured/);
    await setStripeKeys(store.slug, { secretKey: "", publishableKey: PUBLISHABLE_KEY });
    assert.equal((await getPaymentPage(store.slug, token))?.live?.status, "not_configured");
    assert.ok(!JSON.stringify(page).includes("_secret_"), "no client secret on a page that cannot use it");
    // a refresh cannot reach the provider without the secret key: a clear result, not a 500
    assert.equal(await submit(url, { action: "refresh" }), "provider_error");
    assert.equal((await read(c.id)).body.status, "requires_escalation");
  });

  test("a secret key the provider refuses: the page says the payment service is unreachable, not a 500", async () => {
    const { token } = await escalatedCheckout();
    await setStripeKeys(store.slug, { secretKey: "sk_live_revokedkey999", publishableKey: PUBLISHABLE_KEY });
    assert.equal((await getPaymentPage(store.slug, token))?.live?.status, "unavailable");
  });

  test("set-stripe-keys validates the publishable key by prefix and clears it with an empty value", async () => {
    await assert.rejects(setStripeKeys(store.slug, { publishableKey: SECRET_KEY }), /pk_live_/);
    await assert.rejects(setStripeKeys(store.slug, { publishableKey: "pk_other_abcdefgh12" }), /pk_live_/);
    await setStripeKeys(store.slug, { publishableKey: "pk_test_abcdefgh12" });
    const db = await getDb();
    assert.equal(
      (await db.store.findUniqueOrThrow({ where: { id: store.id } })).stripePublishableKey,
      "pk_test_abcdefgh12",
    );
    await setStripeKeys(store.slug, { publishableKey: "" });
    assert.equal((await db.store.findUniqueOrThrow({ where: { id: store.id } })).stripePublishableKey, null);
  });
});
