import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { JWK } from "jose";

import { handleStripeWebhook, SANDBOX_WEBHOOK_SECRET } from "@/lib/checkout/completion/stripe-webhook";
import { getPaymentPage, payHostedCheckout } from "@/lib/checkout/hosted-payment";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { setStripeKeys } from "@/lib/stores/set-stripe-keys";
import {
  startStripeSandbox,
  stripeSandbox,
  stripeSignatureHeader,
  type StripeSandbox,
} from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// Where a test-mode store's card payments go. A merchant who gave the store Stripe TEST keys gets Stripe's own test
// mode with them (here a second sandbox instance stands in for api.stripe.com, named by STRIPE_API_URL): the
// PaymentIntents are on that account, the hosted page runs Stripe.js with the store's pk_test_ key, and webhooks
// are verified with the store's own signing secret. A test-mode store without keys — or with a LIVE key, which a
// test-mode store must never use — stays on the local sandbox (STRIPE_SANDBOX_URL).

const SECRET_KEY = "sk_test_merchantacct42";
const PUBLISHABLE_KEY = "pk_test_merchantacct42";
const WEBHOOK_SECRET = "whsec_merchantacct42";

let stripeTest: StripeSandbox;
let sandbox: StripeSandbox;
let withKeys: Store;
let liveKeyed: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
const variants = new Map<string, string>();

before(async () => {
  stripeTest = await startStripeSandbox();
  // getEnv() caches its first read, which prepareTestDatabase makes: set the URL first
  process.env.STRIPE_API_URL = stripeTest.url;
  await prepareTestDatabase();
  sandbox = await stripeSandbox();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  withKeys = await seedStore({ name: "Test Keys Outfitters" });
  liveKeyed = await seedStore({ name: "Live Key In Test Mode" });
  for (const store of [withKeys, liveKeyed]) {
    const product = await seedProduct(store, { variants: [{ priceMinor: 2_000, inventory: 50 }] });
    variants.set(store.id, product.variants[0]!.id);
    await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 300 }]);
  }
  await setStripeKeys(withKeys.slug, {
    secretKey: SECRET_KEY,
    publishableKey: PUBLISHABLE_KEY,
    webhookSecret: WEBHOOK_SECRET,
  });
  await setStripeKeys(liveKeyed.slug, { secretKey: "sk_live_realmoney1234" });
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(async () => {
  await closeTestDatabase();
  await stripeTest.close();
});

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

/** A ready checkout completed with `token` (null: no card, the buyer pays on the hosted page). */
const completeWith = async (store: Store, token: string | null) => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: variants.get(store.id)! }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  const c = created.body;
  const completed = await rest<Checkout & { continue_url?: string }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${c.id}/complete`,
    {
      headers: headers(),
      body: {
        payment: {
          instruments: [
            {
              handler_id: "svc.card",
              selected: true,
              ...(token ? { credential: { type: "stripe_token", token } } : {}),
            },
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
    },
  );
  return { c, completed };
};

const intentsOn = (server: StripeSandbox, checkoutId: string) =>
  server.paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId);

test("a test-mode store with Stripe test keys charges on Stripe's test mode with its own key, not on the sandbox", async () => {
  const { c, completed } = await completeWith(withKeys, "pm_card_visa");
  assert.equal(completed.body.status, "completed", completed.text);
  const [pi] = intentsOn(stripeTest, c.id);
  assert.equal(pi?.status, "succeeded");
  assert.equal(pi?.livemode, false, "test mode");
  assert.equal(intentsOn(sandbox, c.id).length, 0, "nothing on the local sandbox");
});

test("new Stripe keys for the store are used from its next payment on", async () => {
  const first = await completeWith(withKeys, "pm_card_visa");
  assert.equal(first.completed.body.status, "completed", first.completed.text);
  const [before] = intentsOn(stripeTest, first.c.id);
  assert.equal(stripeTest.createdWith(before!.id), SECRET_KEY);
  const rotated = "sk_test_merchantacct43";
  await setStripeKeys(withKeys.slug, { secretKey: rotated });
  try {
    const second = await completeWith(withKeys, "pm_card_visa");
    assert.equal(second.completed.body.status, "completed", second.completed.text);
    const [after] = intentsOn(stripeTest, second.c.id);
    assert.equal(
      stripeTest.createdWith(after!.id),
      rotated,
      "the rotated key, not a client built for the old one",
    );
  } finally {
    await setStripeKeys(withKeys.slug, { secretKey: SECRET_KEY });
  }
});

test("its hosted page runs Stripe.js with the store's test publishable key; the sandbox's own card form is unavailable", async () => {
  const { c, completed } = await completeWith(withKeys, null);
  assert.equal(completed.body.status, "requires_escalation", completed.text);
  const token = new URL(completed.body.continue_url!).pathname.split("/").at(-1)!;
  const page = await getPaymentPage(withKeys.slug, token);
  assert.equal(page?.mode, "test", "the page still says test mode");
  assert.equal(page?.live?.status, "ready");
  assert.ok(page?.live?.status === "ready" && page.live.publishableKey === PUBLISHABLE_KEY);
  assert.equal(
    await payHostedCheckout(withKeys.slug, token, { action: "card", paymentMethod: "pm_card_visa" }),
    "unavailable",
  );
  assert.equal(intentsOn(stripeTest, c.id).length, 1, "its PaymentIntent is on Stripe's test mode");
});

test("its Stripe webhooks are verified with the store's signing secret, not the sandbox's", async () => {
  const event = JSON.stringify({
    id: `evt_${randomUUID().replaceAll("-", "")}`,
    object: "event",
    type: "payment_intent.requires_action",
    data: { object: { id: "pi_unknown", object: "payment_intent", metadata: {} } },
  });
  const now = Math.floor(Date.now() / 1000);
  const withSandboxSecret = await handleStripeWebhook(
    withKeys.slug,
    event,
    stripeSignatureHeader(event, SANDBOX_WEBHOOK_SECRET, now),
  );
  assert.equal(withSandboxSecret.status, 400, JSON.stringify(withSandboxSecret.body));
  const withOwnSecret = await handleStripeWebhook(
    withKeys.slug,
    event,
    stripeSignatureHeader(event, WEBHOOK_SECRET, now),
  );
  assert.equal(withOwnSecret.status, 200, JSON.stringify(withOwnSecret.body));
});

test("a test-mode store holding a LIVE key never uses it: its payments stay on the local sandbox", async () => {
  const { c, completed } = await completeWith(liveKeyed, "pm_card_visa");
  assert.equal(completed.body.status, "completed", completed.text);
  assert.equal(intentsOn(sandbox, c.id).length, 1, "charged on the sandbox");
  assert.equal(intentsOn(stripeTest, c.id).length, 0, "nothing sent with the live key");
});
