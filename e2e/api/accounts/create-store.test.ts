import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { JWK } from "jose";

import { createAccount } from "@/lib/accounts/accounts";
import { storeForAccount, storesOfAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { createStore } from "@/lib/stores/create-store";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, readJson, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, totalOf, type Checkout } from "../checkout/helpers";

// A merchant creates a store: validated name, slug, currency and country, and either the countries it ships to with
// one flat rate or an explicit "not shipping yet"; the store starts in test mode with a signing key (its profile
// publishes it at once), the creator as its owner and its first shipping rate, so an agent's first purchase goes
// through without a visit to Settings; a taken slug and bad fields are refused with their path and create nothing.

let agent: { url: string; kid: string; privateJwk: JWK };

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  const key = profiles.agentKey as { kid: string; privateJwk: JWK };
  agent = { url: profiles.url("signed"), ...key };
});
after(closeTestDatabase);

const owner = () =>
  createAccount({
    name: "Owner",
    email: `owner-${process.pid}-${Date.now()}-${Math.random()}@example.com`,
    password: "long enough passphrase",
  });
const slug = () => `shop-${process.pid}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;

test("a new store: test mode, a published signing key, its creator as owner", async () => {
  const account = await owner();
  const wanted = slug();
  const store = await createStore(
    { name: " Corner Shop ", slug: wanted.toUpperCase(), currency: "eur", country: "de", shipping: "later" },
    account.id,
  );
  assert.deepEqual(
    [store.slug, store.name, store.currency, store.country, store.mode],
    [wanted, "Corner Shop", "EUR", "DE", "test"],
  );
  assert.equal((await storeForAccount(account, wanted, "owner")).role, "owner");
  assert.deepEqual(
    (await storesOfAccount(account)).map((s) => s.store.slug),
    [wanted],
  );
  const profile = await readJson<{ signing_keys: { kid: string }[] }>(
    await callApp("GET", `/s/${wanted}/.well-known/ucp`),
  );
  assert.equal(profile.status, 200);
  const [key] = await (await getDb()).storeSigningKey.findMany({ where: { storeId: store.id } });
  assert.deepEqual(
    profile.body.signing_keys.map((k) => k.kid),
    [key!.kid],
  );
});

test("bad fields and a taken slug are refused with their path; nothing is created", async () => {
  const account = await owner();
  const taken = slug();
  const later = { shipping: "later" };
  await createStore({ name: "First", slug: taken, currency: "USD", country: "US", ...later }, account.id);
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ name: "", slug: slug(), currency: "USD", country: "US", ...later }, "$.name", /Name the store/],
    [{ name: "X", slug: "-bad-", currency: "USD", country: "US", ...later }, "$.slug", /lower-case letters/],
    [{ name: "X", slug: "ab", currency: "USD", country: "US", ...later }, "$.slug", /at least 3/],
    [{ name: "X", slug: slug(), currency: "XYZ", country: "US", ...later }, "$.currency", /ISO 4217/],
    [{ name: "X", slug: slug(), currency: "USD", country: "ZZ", ...later }, "$.country", /ISO 3166/],
    [
      { name: "X", slug: slug(), currency: "USD", country: "US", mode: "live", ...later },
      "$",
      /Unrecognized key/i,
    ],
    [{ name: "Second", slug: taken, currency: "USD", country: "US", ...later }, "$.slug", /is taken/],
  ];
  for (const [input, path, pattern] of cases) {
    await assert.rejects(createStore(input, account.id), (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, "invalid_request");
      assert.equal(error.path, path);
      assert.match(error.message, pattern);
      return true;
    });
  }
  assert.deepEqual(
    (await storesOfAccount(account)).map((s) => s.store.slug),
    [taken],
  );
});

const flat = (over: Record<string, unknown> = {}) => ({
  name: "Flat Shop",
  slug: slug(),
  currency: "USD",
  country: "US",
  shipping: "flat",
  shipsTo: "US, ca",
  shippingRate: "4.99",
  ...over,
});

test("a new store with a flat rate: one standard rate per country it ships to, in minor units", async () => {
  const account = await owner();
  const store = await createStore(flat({ shipsTo: "us, CA us" }), account.id);
  const rates = await (
    await getDb()
  ).shippingRate.findMany({
    where: { storeId: store.id },
    orderBy: { position: "asc" },
  });
  assert.deepEqual(
    rates.map((r) => [r.code, r.title, r.country, r.region, r.priceMinor, r.freeOverMinor]),
    [
      ["standard", "Standard shipping", "US", null, 499, null],
      ["standard", "Standard shipping", "CA", null, 499, null],
    ],
  );
});

test("bad shipping fields are refused beside their field; no store, no rate is stored", async () => {
  const account = await owner();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ shipping: undefined }, "$.shipping", /flat shipping rate or not shipping yet/],
    [{ shipping: "sometimes" }, "$.shipping", /flat shipping rate or not shipping yet/],
    [{ shipsTo: "" }, "$.shipsTo", /at least one country/],
    [{ shipsTo: undefined }, "$.shipsTo", /at least one country/],
    [{ shipsTo: "US, XX" }, "$.shipsTo", /XX is not a country code/],
    [{ shipsTo: "USA" }, "$.shipsTo", /USA is not a country code/],
    [{ shippingRate: "-1" }, "$.shippingRate", /zero or more/],
    [{ shippingRate: "" }, "$.shippingRate", /Enter an amount in USD/],
    [{ shippingRate: "99999999999" }, "$.shippingRate", /too large/],
    [{ shippingRate: "4.999" }, "$.shippingRate", /USD has 2 decimals/],
    [{ currency: "JPY", shippingRate: "5.50" }, "$.shippingRate", /JPY has no minor unit/],
  ];
  const db = await getDb();
  for (const [over, path, pattern] of cases) {
    const input = flat(over);
    await assert.rejects(createStore(input, account.id), (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, "invalid_request");
      assert.equal(error.path, path, `${JSON.stringify(over)}: ${error.message}`);
      assert.match(error.message, pattern);
      return true;
    });
    assert.equal(await db.store.count({ where: { slug: input.slug } }), 0);
  }
  assert.deepEqual(await storesOfAccount(account), []);
});

const checkoutHeaders = (key: string) => ({
  "x-api-key": key,
  "ucp-agent": `profile="${agent.url}"`,
  "idempotency-key": randomUUID(),
});

const firstPurchase = async (store: Store) => {
  const variant = (await seedProduct(store, { variants: [{ priceMinor: 1200, inventory: 5 }] })).variants[0]!;
  const { key } = await seedPlatformKey(["purchase:complete"]);
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: checkoutHeaders(key),
    body: {
      line_items: [{ item: { id: variant.id }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.status, 201, created.text);
  return { key, checkout: created.body };
};

test("POST /s/:slug/checkout-sessions/:id/complete — an agent's first purchase in a store just created with a flat rate succeeds (card, sandbox PSP)", async () => {
  const store = await createStore(flat(), (await owner()).id);
  const { key, checkout } = await firstPurchase(store);
  assert.equal(checkout.status, "ready_for_complete", JSON.stringify(checkout.messages));
  assert.equal(totalOf(checkout, "fulfillment"), 499);
  const mandate = await signCheckoutMandate(mandateTerms(checkout, store.slug), {
    privateJwk: agent.privateJwk,
    kid: agent.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const done = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions/${checkout.id}/complete`, {
    headers: checkoutHeaders(key),
    body: {
      payment: {
        instruments: [
          {
            id: "card-1",
            handler_id: "svc.card",
            type: "card",
            selected: true,
            credential: { type: "stripe_token", token: "pm_card_visa" },
          },
        ],
      },
      ap2: { checkout_mandate: mandate },
    },
  });
  assert.equal(done.status, 200, done.text);
  assert.equal(done.body.status, "completed", JSON.stringify(done.body.messages));
  const intents = (await stripeSandbox())
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === checkout.id);
  assert.deepEqual(
    intents.map((pi) => [pi.status, pi.amount]),
    [["succeeded", 1200 + 499]],
  );
  assert.equal(await (await getDb()).order.count({ where: { storeId: store.id } }), 1);
});

test("POST /s/:slug/checkout-sessions — a store created not shipping yet answers address_undeliverable telling the merchant to add a shipping rate", async () => {
  const store = await createStore(flat({ shipping: "later" }), (await owner()).id);
  assert.equal(await (await getDb()).shippingRate.count({ where: { storeId: store.id } }), 0);
  const { checkout } = await firstPurchase(store);
  assert.equal(checkout.status, "incomplete");
  const message = checkout.messages.find((m) => m.code === "address_undeliverable");
  assert.equal(message?.path, "$.fulfillment.methods[0].destinations[0]");
  assert.match(
    message?.content ?? "",
    /no shipping rate for United States \(US\).*merchant must add a shipping rate for US/,
  );
});
