import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";

import { seedDiscountCodes, seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The discount extension on carts (UCP discount extends cart and checkout): codes on create and update, the
// same rules as checkouts, and codes carried over when a checkout is made from the cart.

type Cart = {
  id: string;
  ucp: { capabilities: Record<string, unknown> };
  discounts: { codes: string[]; applied: { code: string; amount: number }[] };
  totals: { type: string; amount: number }[];
  messages: { type: string; code: string; path?: string }[];
};

let store: Store;
let variant: { id: string };
let key: string;

const h = () => ({ "x-api-key": key, "idempotency-key": randomUUID() });
const assertCartSchema = (body: unknown) => {
  assertUcpSchema("shopping/cart.json", body);
  assertUcpSchema("shopping/discount.json#/$defs/dev.ucp.shopping.cart", body);
};
const amounts = (c: Cart) => c.totals.map((t) => [t.type, t.amount]);

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variant = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 20 }] })).variants[0]!;
  await seedDiscountCodes(store, [
    { code: "TEN", kind: "percentage", value: 1000, title: "10% off" },
    { code: "TWO", kind: "fixed_amount", value: 200, title: "2 off" },
  ]);
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

test("REST carts: codes apply (negative discount total), unknown ones warn at their path, update replaces, [] clears, omitted keeps", async () => {
  const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
    headers: h(),
    body: { line_items: [{ item: { id: variant.id }, quantity: 2 }], discounts: { codes: ["ten", "BOGUS"] } },
  });
  assert.equal(created.status, 201, created.text);
  assertCartSchema(created.body);
  assert.ok("dev.ucp.shopping.discount" in created.body.ucp.capabilities);
  assert.deepEqual(amounts(created.body), [
    ["subtotal", 5000],
    ["discount", -500],
    ["total", 4500],
  ]);
  assert.deepEqual(
    created.body.messages.map((m) => [m.code, m.path]),
    [["discount_code_invalid", "$.discounts.codes[1]"]],
  );
  const path = `/s/${store.slug}/carts/${created.body.id}`;
  const lines = [{ item: { id: variant.id }, quantity: 2 }];
  const replaced = await rest<Cart>("PUT", path, {
    headers: h(),
    body: { line_items: lines, discounts: { codes: ["TWO"] } },
  });
  assertCartSchema(replaced.body);
  assert.deepEqual(replaced.body.discounts.codes, ["TWO"]);
  assert.equal(replaced.body.totals.at(-1)?.amount, 4800);
  const kept = await rest<Cart>("PUT", path, { headers: h(), body: { line_items: lines } });
  assert.deepEqual(kept.body.discounts.codes, ["TWO"]);
  const read = await rest<Cart>("GET", path, { headers: { "x-api-key": key } });
  assert.deepEqual(amounts(read.body), amounts(kept.body));
  const cleared = await rest<Cart>("PUT", path, {
    headers: h(),
    body: { line_items: lines, discounts: { codes: [] } },
  });
  assert.deepEqual(cleared.body.discounts, { codes: [], applied: [] });
  assert.deepEqual(amounts(cleared.body), [
    ["subtotal", 5000],
    ["total", 5000],
  ]);
});

test("MCP create_cart with codes (official SDK client); a checkout from the cart carries the codes over", async () => {
  const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
  try {
    const result = await client.callTool({
      name: "create_cart",
      arguments: {
        meta: toolMeta(randomUUID()),
        cart: { line_items: [{ item: { id: variant.id }, quantity: 1 }], discounts: { codes: ["TWO"] } },
      },
    });
    const cart = result.structuredContent as Cart;
    assertCartSchema(cart);
    assert.equal(cart.totals.at(-1)?.amount, 2300);
    const checkout = await client.callTool({
      name: "create_checkout",
      arguments: { meta: toolMeta(randomUUID()), checkout: { cart_id: cart.id } },
    });
    const body = checkout.structuredContent as Cart;
    assert.deepEqual(body.discounts.codes, ["TWO"]);
    assert.equal(body.discounts.applied[0]?.amount, 200);
  } finally {
    await client.close();
  }
});
