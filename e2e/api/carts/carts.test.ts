import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { mcpCall, rest } from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Carts on REST and MCP (UCP cart capability): live prices, totals in minor units, full-replacement update,
// final cancel, and isolation between stores and between platforms.

type Cart = {
  id: string;
  currency: string;
  line_items: {
    id: string;
    item: { id: string; title: string; price: number };
    quantity: number;
    totals: { type: string; amount: number }[];
  }[];
  totals: { type: string; amount: number }[];
  messages: { type: string; code: string; path?: string; severity?: string }[];
};
type Rpc = { result?: { structuredContent: Cart }; error?: { data: { code: string } } };

let store: Store;
let otherStore: Store;
let boots: { id: string; priceMinor: number };
let socks: { id: string; priceMinor: number };
let soldOut: { id: string };
let key: string;

const headers = (extra: Record<string, string> = {}) => ({
  "x-api-key": key,
  "idempotency-key": randomUUID(),
  ...extra,
});
const total = (cart: Cart, type: string) => cart.totals.find((t) => t.type === type)?.amount;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  otherStore = await seedStore();
  boots = (await seedProduct(store, { title: "Trail Boot", variants: [{ priceMinor: 11999, inventory: 5 }] }))
    .variants[0]!;
  socks = (
    await seedProduct(store, { title: "Wool Socks", variants: [{ priceMinor: 1450, inventory: 100 }] })
  ).variants[0]!;
  soldOut = (await seedProduct(store, { title: "Rare Hat", variants: [{ priceMinor: 3000, inventory: 0 }] }))
    .variants[0]!;
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

describe("REST /s/:slug/carts", () => {
  test("create → 201, schema-valid, live prices, integer totals (one subtotal, one total)", async () => {
    const res = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: {
        line_items: [
          { item: { id: boots.id }, quantity: 2 },
          { item: { id: socks.id }, quantity: 3 },
        ],
      },
    });
    assert.equal(res.status, 201, res.text);
    assertUcpSchema("shopping/cart.json", res.body);
    assert.equal(res.body.currency, "USD");
    assert.deepEqual(
      res.body.line_items.map((l) => [l.item.id, l.item.price, l.quantity]),
      [
        [boots.id, 11999, 2],
        [socks.id, 1450, 3],
      ],
    );
    assert.equal(total(res.body, "subtotal"), 2 * 11999 + 3 * 1450);
    assert.equal(total(res.body, "total"), 2 * 11999 + 3 * 1450);
    for (const t of res.body.totals) assert.ok(Number.isInteger(t.amount));
    assert.deepEqual(res.body.messages, []);
  });

  test("get re-prices live: a price change shows on the next read", async () => {
    const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: { line_items: [{ item: { id: socks.id }, quantity: 1 }] },
    });
    await (await getDb()).variant.update({ where: { id: socks.id }, data: { priceMinor: 1500 } });
    const read = await rest<Cart>("GET", `/s/${store.slug}/carts/${created.body.id}`, {
      headers: { "x-api-key": key },
    });
    assert.equal(read.status, 200);
    assertUcpSchema("shopping/cart.json", read.body);
    assert.equal(read.body.line_items[0]?.item.price, 1500);
    await (await getDb()).variant.update({ where: { id: socks.id }, data: { priceMinor: socks.priceMinor } });
  });

  test("out of stock and over-quantity lines carry recoverable errors with JSONPaths; unknown variants are reported", async () => {
    const res = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: {
        line_items: [
          { item: { id: soldOut.id }, quantity: 1 },
          { item: { id: boots.id }, quantity: 6 },
          { item: { id: "var_unknown" }, quantity: 1 },
        ],
      },
    });
    assert.equal(res.status, 201);
    assertUcpSchema("shopping/cart.json", res.body);
    const codes = res.body.messages.map((m) => [m.code, m.path]);
    assert.deepEqual(codes, [
      ["out_of_stock", "$.line_items[0].quantity"],
      ["out_of_stock", "$.line_items[1].quantity"],
      ["item_unavailable", undefined],
    ]);
    assert.equal(res.body.line_items.length, 2);
  });

  test("no sellable line → 200 error envelope item_unavailable, and no cart is created", async () => {
    const db = await getDb();
    const before = await db.cart.count({ where: { storeId: store.id } });
    const res = await rest("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: { line_items: [{ item: { id: "var_nope" }, quantity: 1 }] },
    });
    assert.equal(res.status, 200);
    assertUcpSchema("shopping/types/error_response.json", res.body);
    assert.equal((res.body as { messages: { code: string }[] }).messages[0]?.code, "item_unavailable");
    assert.equal(await db.cart.count({ where: { storeId: store.id } }), before);
  });

  test("update is a full replacement of the lines", async () => {
    const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: {
        line_items: [
          { item: { id: boots.id }, quantity: 1 },
          { item: { id: socks.id }, quantity: 1 },
        ],
      },
    });
    const updated = await rest<Cart>("PUT", `/s/${store.slug}/carts/${created.body.id}`, {
      headers: headers(),
      body: { id: created.body.id, line_items: [{ item: { id: socks.id }, quantity: 4 }] },
    });
    assert.equal(updated.status, 200, updated.text);
    assertUcpSchema("shopping/cart.json", updated.body);
    assert.deepEqual(
      updated.body.line_items.map((l) => [l.item.id, l.quantity]),
      [[socks.id, 4]],
    );
    assert.equal(total(updated.body, "total"), 4 * socks.priceMinor);
  });

  test("update reports unknown variants as item_unavailable, keeps the rest, and its line ids match a read", async () => {
    const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: { line_items: [{ item: { id: boots.id }, quantity: 1 }] },
    });
    const updated = await rest<Cart>("PUT", `/s/${store.slug}/carts/${created.body.id}`, {
      headers: headers(),
      body: {
        line_items: [
          { item: { id: "var_gone" }, quantity: 1 },
          { item: { id: socks.id }, quantity: 2 },
        ],
      },
    });
    assert.equal(updated.status, 200, updated.text);
    assertUcpSchema("shopping/cart.json", updated.body);
    assert.deepEqual(
      updated.body.messages.map((m) => m.code),
      ["item_unavailable"],
    );
    assert.deepEqual(
      updated.body.line_items.map((l) => [l.item.id, l.quantity]),
      [[socks.id, 2]],
    );
    const read = await rest<Cart>("GET", `/s/${store.slug}/carts/${created.body.id}`, {
      headers: { "x-api-key": key },
    });
    assert.deepEqual(
      read.body.line_items.map((l) => l.id),
      updated.body.line_items.map((l) => l.id),
    );
  });

  test("cancel returns the last state; afterwards get, update and cancel all answer not_found", async () => {
    const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: { line_items: [{ item: { id: socks.id }, quantity: 2 }] },
    });
    const canceled = await rest<Cart>("POST", `/s/${store.slug}/carts/${created.body.id}/cancel`, {
      headers: headers(),
    });
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.id, created.body.id);
    assert.equal(canceled.body.line_items[0]?.quantity, 2);
    for (const [method, path, body] of [
      ["GET", `/s/${store.slug}/carts/${created.body.id}`, undefined],
      [
        "PUT",
        `/s/${store.slug}/carts/${created.body.id}`,
        { line_items: [{ item: { id: socks.id }, quantity: 1 }] },
      ],
      ["POST", `/s/${store.slug}/carts/${created.body.id}/cancel`, undefined],
    ] as const) {
      const res = await rest(method, path, { headers: headers(), body });
      assert.equal(res.status, 200, `${method} ${path}`);
      assertUcpSchema("shopping/types/error_response.json", res.body);
      assert.equal(
        (res.body as { messages: { code: string; severity: string }[] }).messages[0]?.code,
        "not_found",
      );
    }
  });

  test("isolation: another store's path and another platform's key both see not_found", async () => {
    const created = await rest<Cart>("POST", `/s/${store.slug}/carts`, {
      headers: headers(),
      body: { line_items: [{ item: { id: socks.id }, quantity: 1 }] },
    });
    const wrongStore = await rest("GET", `/s/${otherStore.slug}/carts/${created.body.id}`, {
      headers: { "x-api-key": key },
    });
    assert.equal((wrongStore.body as { messages: { code: string }[] }).messages[0]?.code, "not_found");
    const other = await seedPlatformKey();
    const wrongKey = await rest("GET", `/s/${store.slug}/carts/${created.body.id}`, {
      headers: { "x-api-key": other.key },
    });
    assert.equal((wrongKey.body as { messages: { code: string }[] }).messages[0]?.code, "not_found");
  });

  test("a variant of another store cannot be added", async () => {
    const res = await rest("POST", `/s/${otherStore.slug}/carts`, {
      headers: headers(),
      body: { line_items: [{ item: { id: boots.id }, quantity: 1 }] },
    });
    assert.equal((res.body as { messages: { code: string }[] }).messages[0]?.code, "item_unavailable");
  });
});

describe("MCP create_cart / get_cart / update_cart / cancel_cart", () => {
  const call = (tool: string, args: Record<string, unknown>, mutates = true) =>
    mcpCall<Rpc>(`/s/${store.slug}/mcp`, tool, args, {
      headers: { "x-api-key": key },
      idempotencyKey: mutates ? randomUUID() : undefined,
    });

  test("the same lifecycle through the cart namespace and top-level id", async () => {
    const created = await call("create_cart", {
      cart: { line_items: [{ item: { id: boots.id }, quantity: 1 }] },
    });
    const cart = created.body.result!.structuredContent;
    assertUcpSchema("shopping/cart.json", cart);
    const read = await call("get_cart", { id: cart.id }, false);
    assert.equal(read.body.result?.structuredContent.id, cart.id);
    const updated = await call("update_cart", {
      id: cart.id,
      cart: { line_items: [{ item: { id: socks.id }, quantity: 2 }] },
    });
    assert.deepEqual(
      updated.body.result?.structuredContent.line_items.map((l) => l.item.id),
      [socks.id],
    );
    const canceled = await call("cancel_cart", { id: cart.id });
    assert.equal(canceled.body.result?.structuredContent.id, cart.id);
    const after = await call("get_cart", { id: cart.id }, false);
    assert.equal(
      (after.body.result?.structuredContent as unknown as { messages: { code: string }[] }).messages[0]?.code,
      "not_found",
    );
  });
});
