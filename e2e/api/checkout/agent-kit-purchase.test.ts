import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  cardCompletion,
  createShoppingClient,
  startAgentProfileServer,
  UcpError,
  type AgentProfileServer,
  type ShoppingClient,
} from "@agent-commerce/agent-kit";

import type { Store } from "@/lib/generated/prisma/client";

import { seedCatalogProduct, seedPlatformKey, seedShippingRates, seedStore } from "../../factories";
import { callApp, TEST_BASE_URL } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The agent kit (packages/agent-kit) against the real route handlers: its REST client, its profile server with a
// generated key, its RFC 9421 request signing and its mandate terms and signer make a whole card purchase, so
// what the kit builds is what the service verifies (the service's verifier uses the kit's terms function). A
// mandate over stale terms, or a request signed with a key the profile does not publish, is refused.

let store: Store;
let agent: AgentProfileServer;
let key: string;

/** The kit's client with its fetch routed to the in-process handlers (the URL the signature covers is TEST_BASE_URL). */
const kitClient = (extra: Partial<Parameters<typeof createShoppingClient>[0]> = {}): ShoppingClient =>
  createShoppingClient({
    baseUrl: TEST_BASE_URL,
    store: store.slug,
    apiKey: key,
    agentProfileUrl: agent.profileUrl,
    requestSigner: agent.key,
    fetch: async (url, init) => {
      const target = new URL(url);
      return callApp(init.method ?? "GET", `${target.pathname}${target.search}`, {
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        ...(typeof init.body === "string" ? { rawBody: init.body } : {}),
      });
    },
    ...extra,
  });

before(async () => {
  await prepareTestDatabase();
  agent = await startAgentProfileServer();
  store = await seedStore({ taxRateBps: 1000 });
  await seedCatalogProduct(store, {
    title: "Kit Trail Lantern",
    variants: [{ priceMinor: 2450, inventory: 5 }],
  });
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  key = (await seedPlatformKey(["purchase:complete", "orders:read"])).key;
});
after(async () => {
  await agent.close();
  await closeTestDatabase();
});

const readyCheckout = async (client: ShoppingClient) => {
  const found = await client.searchCatalog({ query: "lantern" });
  const variant = found.products[0]?.variants.find((v) => v.availability?.available !== false);
  assert.ok(variant, `search found the product: ${JSON.stringify(found)}`);
  const created = await client.createCheckout({
    line_items: [{ item: { id: variant.id }, quantity: 2 }],
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
  });
  assert.equal(created.status, "incomplete");
  const addressed = await client.updateCheckout(created.id, {
    fulfillment: {
      methods: [
        {
          type: "shipping",
          destinations: [
            {
              street_address: "1 Market St",
              address_locality: "San Francisco",
              address_region: "CA",
              postal_code: "94105",
              address_country: "US",
            },
          ],
        },
      ],
    },
  });
  const option = addressed.fulfillment?.methods?.[0]?.groups?.[0]?.options?.[0];
  assert.equal(option?.id, "standard");
  const ready = await client.updateCheckout(created.id, {
    fulfillment: { methods: [{ type: "shipping", groups: [{ selected_option_id: option.id }] }] },
    payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
  });
  assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready.messages));
  return ready;
};

test("the kit's client, signed requests and mandate make a whole card purchase; the order reads back", async () => {
  const client = kitClient();
  const ready = await readyCheckout(client);
  const completed = await client.completeCheckout(
    ready.id,
    await cardCompletion(ready, store.slug, { token: "pm_card_visa", mandateSigner: agent.key }),
  );
  assert.equal(completed.status, "completed", JSON.stringify(completed.messages));
  const orderId = completed.order?.id;
  assert.ok(orderId);
  const order = await client.getOrder(orderId);
  assert.equal(order.id, orderId);
  const amount = (type: string) => ready.totals.find((t) => t.type === type)?.amount;
  assert.equal(amount("subtotal"), 2 * 2450);
  const total = amount("total");
  // lines + shipping + 10 % tax on both
  assert.equal(total, 2 * 2450 + 500 + 540);
  assert.equal(order.totals?.find((t) => t.type === "total")?.amount, total);
});

test("a mandate signed over the checkout before it changed is refused, and nothing is charged or ordered", async () => {
  const client = kitClient();
  const ready = await readyCheckout(client);
  const stale = await cardCompletion(ready, store.slug, { token: "pm_card_visa", mandateSigner: agent.key });
  const moved = await client.updateCheckout(ready.id, {
    fulfillment: {
      methods: [
        {
          type: "shipping",
          destinations: [
            {
              street_address: "2 Elm St",
              address_locality: "Boston",
              postal_code: "02108",
              address_country: "US",
            },
          ],
          groups: [{ selected_option_id: "standard" }],
        },
      ],
    },
  });
  assert.equal(moved.status, "ready_for_complete", JSON.stringify(moved.messages));
  const refused = await client.completeCheckout(ready.id, stale).then(
    (answer) => answer,
    (error: unknown) => error,
  );
  const code =
    refused instanceof UcpError
      ? refused.code
      : (refused as { messages?: { code?: string }[] }).messages?.[0]?.code;
  assert.equal(code, "mandate_invalid_signature", JSON.stringify(refused));
  const after = await client.getCheckout(ready.id);
  assert.notEqual(after.status, "completed");
  assert.equal(after.order, undefined);
});

test("a request signed with a key the profile does not publish is refused as a signature failure", async () => {
  const other = await startAgentProfileServer();
  try {
    // the UCP-Agent profile is `agent`'s; the signature is by `other`'s key, unknown to that profile
    const client = kitClient({ requestSigner: other.key });
    const error = await client.getCheckout("chk_none").then(
      () => assert.fail("resolved"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof UcpError);
    assert.equal(error.status, 401, error.message);
    assert.equal(error.code, "key_not_found", error.message);
  } finally {
    await other.close();
  }
});
