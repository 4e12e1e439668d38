import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

import type { BridgeOptions } from "@/lib/bridge/http";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedCatalogProduct, seedPlatformKey, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { connectBridge, resultJson, serviceFetch, TEST_BASE_URL, toolError } from "./helpers";

// The bridge takes the seed's own shapes (shipping_address in line1/city/region form, payment_method as the
// handler id from ucp.payment_handlers), says what an incomplete checkout is missing, and charges a card only for
// the terms the agent read: a merchant's price change or someone's quantity change between the agent's read and
// confirm_purchase refuses that checkout with the new terms, and nothing is charged.

let store: Store;
let agent: AgentProfileServer;
let key: string;
let variantId: string;
let client: Client;

const options = (): BridgeOptions => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: agent.profileUrl,
  key: agent.key,
  fetch: serviceFetch(),
  retry: { baseDelayMs: 1, sleep: async () => {} },
});

before(async () => {
  await prepareTestDatabase();
  agent = await startAgentProfileServer();
  store = await seedStore({ taxRateBps: 0 });
  const mug = await seedCatalogProduct(store, {
    title: "Seen Terms Mug",
    variants: [{ priceMinor: 1000, inventory: 100 }],
  });
  variantId = (await (await getDb()).variant.findFirstOrThrow({ where: { productId: mug.id } })).id;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  key = (await seedPlatformKey(["purchase:complete", "orders:read"])).key;
  client = await connectBridge(options(), { "x-api-key": key });
});
after(async () => {
  await client.close();
  await agent.close();
  await closeTestDatabase();
});

const SEED_ADDRESS = {
  line1: "1 Market St",
  line2: "Suite 5",
  city: "San Francisco",
  region: "CA",
  postal_code: "94105",
  country: "us",
};
const BUYER = { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" };

const call = async (name: string, args: Record<string, unknown>, c: Client = client) =>
  c.callTool({ name, arguments: args });

type CheckoutAnswer = {
  id: string;
  status: string;
  terms_fingerprint: string;
  fulfillment: {
    methods: { destinations: Record<string, string>[]; groups: { options: { id: string }[] }[] }[];
  };
  totals: { type: string; amount: number }[];
  messages?: unknown;
};

/** A ready checkout made with the seed's address form; returns the answer the agent showed the buyer. */
const readyCheckout = async (quantity = 2): Promise<CheckoutAnswer> => {
  const created = resultJson(
    await call("create_checkout", {
      store_slug: store.slug,
      items: [{ id: variantId, quantity }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
    }),
  ) as CheckoutAnswer;
  const ready = resultJson(
    await call("update_checkout", { store_slug: store.slug, id: created.id, shipping_method_id: "standard" }),
  ) as CheckoutAnswer;
  assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready.messages));
  return ready;
};

const succeededCharges = async (checkoutId: string) =>
  (await stripeSandbox())
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === checkoutId && pi.status === "succeeded").length;
const orderCount = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });
const totalOf = (checkout: { totals: { type: string; amount: number }[] }) =>
  checkout.totals.find((t) => t.type === "total")?.amount;

type Confirmed = {
  status: string;
  message: string;
  results: {
    status: string;
    order?: { id: string };
    total?: { amount: number };
    error?: {
      code: string;
      message: string;
      path?: string;
      missing?: { path: string }[];
      terms?: { terms_fingerprint: string; total: { amount: number }; line_items: { quantity: number }[] };
    };
  }[];
};

test("bridge create_checkout — the seed's shipping_address (line1, city, region, postal_code, country) is accepted as UCP's postal_address", async () => {
  const created = resultJson(
    await call("create_checkout", {
      store_slug: store.slug,
      items: [{ id: variantId, quantity: 1 }],
      shipping_address: SEED_ADDRESS,
    }),
  ) as CheckoutAnswer;
  const destination = created.fulfillment.methods[0]?.destinations[0];
  assert.deepEqual(
    {
      street_address: destination?.street_address,
      extended_address: destination?.extended_address,
      address_locality: destination?.address_locality,
      address_region: destination?.address_region,
      postal_code: destination?.postal_code,
      address_country: destination?.address_country,
    },
    {
      street_address: "1 Market St",
      extended_address: "Suite 5",
      address_locality: "San Francisco",
      address_region: "CA",
      postal_code: "94105",
      address_country: "US",
    },
  );
  assert.equal(created.fulfillment.methods[0]?.groups[0]?.options[0]?.id, "standard");

  // UCP's names work on update_checkout too
  const updated = resultJson(
    await call("update_checkout", {
      store_slug: store.slug,
      id: created.id,
      shipping_address: {
        street_address: "2 Mission St",
        address_locality: "San Francisco",
        postal_code: "94105",
        address_country: "US",
      },
    }),
  ) as CheckoutAnswer;
  assert.equal(updated.fulfillment.methods[0]?.destinations[0]?.street_address, "2 Mission St");
});

test("bridge create_checkout — a shipping_address mixing the seed's and UCP's names, or missing a part, is invalid_request naming the fields; nothing is created", async () => {
  const db = await getDb();
  const before = await db.checkoutSession.count({ where: { storeId: store.id } });
  const mixed = toolError(
    await call("create_checkout", {
      store_slug: store.slug,
      items: [{ id: variantId, quantity: 1 }],
      shipping_address: {
        line1: "1 Market St",
        address_locality: "San Francisco",
        postal_code: "94105",
        country: "US",
      },
    }),
  );
  assert.equal(mixed.code, "invalid_request");
  assert.equal(mixed.path, "$.shipping_address.line1");
  assert.match(mixed.message, /line1, country/);
  assert.match(mixed.message, /address_locality/);

  const partial = toolError(
    await call("create_checkout", {
      store_slug: store.slug,
      items: [{ id: variantId, quantity: 1 }],
      shipping_address: { line1: "1 Market St", postal_code: "94105", country: "US" },
    }),
  );
  assert.deepEqual([partial.code, partial.path], ["invalid_request", "$.shipping_address.city"]);
  assert.equal(await db.checkoutSession.count({ where: { storeId: store.id } }), before);
});

test("bridge confirm_purchase — payment_method 'svc.card' (the handler id in ucp.payment_handlers) pays like 'card'", async () => {
  const ready = await readyCheckout();
  const confirmed = resultJson(
    await call("confirm_purchase", {
      checkouts: [
        { store_slug: store.slug, checkout_id: ready.id, terms_fingerprint: ready.terms_fingerprint },
      ],
      payment_method: "svc.card",
      pay_with: "pm_card_visa",
    }),
  ) as Confirmed;
  assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
  assert.equal(confirmed.results[0]?.total?.amount, totalOf(ready));
  assert.equal(await succeededCharges(ready.id), 1);
});

test("bridge confirm_purchase — an incomplete checkout is refused naming every missing field with its JSONPath; nothing is charged", async () => {
  const created = resultJson(
    await call("create_checkout", { store_slug: store.slug, items: [{ id: variantId, quantity: 1 }] }),
  ) as CheckoutAnswer;
  assert.equal(created.status, "incomplete");
  const confirmed = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: store.slug, checkout_id: created.id }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as Confirmed;
  assert.equal(confirmed.status, "failed");
  const error = confirmed.results[0]?.error;
  assert.equal(error?.code, "checkout_incomplete");
  const paths = error?.missing?.map((m) => m.path) ?? [];
  for (const path of ["$.buyer.email", "$.buyer.first_name", "$.fulfillment.methods[0].destinations"]) {
    assert.ok(paths.includes(path), JSON.stringify(error));
    assert.ok(error?.message.includes(path), error?.message);
  }
  assert.equal(await orderCount(created.id), 0);
});

test("bridge confirm_purchase (card) — the merchant triples the price after the agent read the checkout → terms_changed with the new terms; nothing is charged; confirming the new terms pays them", async () => {
  const ready = await readyCheckout();
  const seenTotal = totalOf(ready)!;
  await (await getDb()).variant.update({ where: { id: variantId }, data: { priceMinor: 3000 } });
  try {
    // with the fingerprint the agent read, and without it (the bridge remembers what it showed this caller)
    for (const ref of [
      { store_slug: store.slug, checkout_id: ready.id, terms_fingerprint: ready.terms_fingerprint },
      { store_slug: store.slug, checkout_id: ready.id },
    ]) {
      const refused = resultJson(
        await call("confirm_purchase", {
          checkouts: [ref],
          payment_method: "card",
          pay_with: "pm_card_visa",
        }),
      ) as Confirmed;
      assert.equal(refused.status, "failed", JSON.stringify(refused));
      const error = refused.results[0]?.error;
      assert.equal(error?.code, "terms_changed", JSON.stringify(error));
      assert.equal(error?.path, "$.checkouts[0].terms_fingerprint");
      assert.equal(error?.terms?.total.amount, 2 * 3000 + 500);
      assert.notEqual(error?.terms?.terms_fingerprint, ready.terms_fingerprint);
      assert.notEqual(error?.terms?.total.amount, seenTotal);
      assert.equal(await orderCount(ready.id), 0);
      assert.equal(await succeededCharges(ready.id), 0);
    }

    // the refusal does not count as "shown": a blind retry is still refused…
    const again = resultJson(
      await call("confirm_purchase", {
        checkouts: [{ store_slug: store.slug, checkout_id: ready.id }],
        payment_method: "card",
        pay_with: "pm_card_visa",
      }),
    ) as Confirmed;
    assert.equal(again.results[0]?.error?.code, "terms_changed");
    // …and passing the new terms' fingerprint (the buyer agreed to them) pays exactly those
    const fingerprint = again.results[0]?.error?.terms?.terms_fingerprint;
    const paid = resultJson(
      await call("confirm_purchase", {
        checkouts: [{ store_slug: store.slug, checkout_id: ready.id, terms_fingerprint: fingerprint }],
        payment_method: "card",
        pay_with: "pm_card_visa",
      }),
    ) as Confirmed;
    assert.equal(paid.status, "completed", JSON.stringify(paid));
    assert.equal(paid.results[0]?.total?.amount, 2 * 3000 + 500);
    assert.equal(await succeededCharges(ready.id), 1);
  } finally {
    await (await getDb()).variant.update({ where: { id: variantId }, data: { priceMinor: 1000 } });
  }
});

test("bridge confirm_purchase (card) — the quantity changed by another call after the agent read the checkout → terms_changed; nothing is charged", async () => {
  const ready = await readyCheckout(2);
  const changed = await rest("PUT", `/s/${store.slug}/checkout-sessions/${ready.id}`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: variantId }, quantity: 7 }] },
  });
  assert.equal(changed.status, 200, changed.text);
  const refused = resultJson(
    await call("confirm_purchase", {
      checkouts: [
        { store_slug: store.slug, checkout_id: ready.id, terms_fingerprint: ready.terms_fingerprint },
      ],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as Confirmed;
  const error = refused.results[0]?.error;
  assert.equal(error?.code, "terms_changed", JSON.stringify(refused));
  assert.deepEqual(
    error?.terms?.line_items.map((l) => l.quantity),
    [7],
  );
  assert.equal(error?.terms?.total.amount, 7 * 1000 + 500);
  assert.equal(await orderCount(ready.id), 0);
  assert.equal(await succeededCharges(ready.id), 0);
});

test("bridge confirm_purchase (card) — a checkout this bridge never showed the caller, without terms_fingerprint → terms_confirmation_required with its terms; nothing is charged", async () => {
  const created = await rest<{ id: string }>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.ok(created.status < 300, created.text);
  const refused = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: store.slug, checkout_id: created.body.id }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as Confirmed;
  const error = refused.results[0]?.error;
  assert.equal(error?.code, "terms_confirmation_required", JSON.stringify(refused));
  assert.equal(error?.terms?.total.amount, 1000 + 500);
  assert.equal(await succeededCharges(created.body.id), 0);
});
