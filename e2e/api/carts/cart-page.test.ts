import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { getCartPage } from "@/lib/carts/get-cart-page";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { mcpCall, rest, TEST_BASE_URL } from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The cart's continue_url on REST and MCP, and the data its page renders (lib/carts/get-cart-page.ts; the
// browser test is e2e/ui/cart.spec.ts).

type Cart = { id: string; continue_url: string };

let store: Store;
let otherStore: Store;
let variant: { id: string };
let key: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ name: "Peak Outfitters" });
  otherStore = await seedStore();
  variant = (
    await seedProduct(store, { title: "Ridge Jacket", variants: [{ priceMinor: 18900, inventory: 2 }] })
  ).variants[0]!;
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);

test("create_cart (REST and MCP) returns a continue_url on this store's /cart/<token>, never the cart id", async () => {
  const viaRest = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: variant.id }, quantity: 1 }] },
  });
  assertUcpSchema("shopping/cart.json", viaRest.body);
  assert.match(
    viaRest.body.continue_url,
    new RegExp(`^${TEST_BASE_URL}/s/${store.slug}/cart/ct_[A-Za-z0-9_-]{22}$`),
  );
  assert.ok(!viaRest.body.continue_url.includes(viaRest.body.id));
  const viaMcp = await mcpCall<{ result: { structuredContent: Cart } }>(
    `/s/${store.slug}/mcp`,
    "create_cart",
    { cart: { line_items: [{ item: { id: variant.id }, quantity: 1 }] } },
    { headers: { "x-api-key": key }, idempotencyKey: randomUUID() },
  );
  const mcpCart = viaMcp.body.result.structuredContent;
  assert.notEqual(tokenOf(mcpCart.continue_url), tokenOf(viaRest.body.continue_url));
  const read = await rest<Cart>("GET", `/s/${store.slug}/carts/${mcpCart.id}`, {
    headers: { "x-api-key": key },
  });
  assert.equal(read.body.continue_url, mcpCart.continue_url);
});

test("the page data: live lines and subtotal, stock problems per line; nothing for another store, a canceled cart or a bad token", async () => {
  const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: variant.id }, quantity: 3 }] },
  });
  const token = tokenOf(created.body.continue_url);
  const page = await getCartPage(store.slug, token);
  assert.ok(page);
  assert.equal(page.storeName, "Peak Outfitters");
  assert.deepEqual(
    page.lines.map((l) => [l.title, l.quantity, l.unitPriceMinor, l.amountMinor]),
    [["Ridge Jacket", 3, 18900, 56700]],
  );
  assert.equal(page.subtotalMinor, 56700);
  assert.match(page.lines[0]!.problem ?? "", /Only 2/);
  assert.equal(await getCartPage(otherStore.slug, token), null);
  assert.equal(await getCartPage(store.slug, "ct_nope"), null);
  assert.equal(await getCartPage("Bad Slug!", token), null);
  await rest("POST", `/s/${store.slug}/carts/${created.body.id}/cancel`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
  });
  assert.equal(await getCartPage(store.slug, token), null);
});
