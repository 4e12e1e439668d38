import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { transaction } from "@/lib/config/sql";
import { isAppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { reserveSpend } from "@/lib/mandates/spend-ledger";
import { placeOrder } from "@/lib/orders/place-order";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  assertCheckoutSchema,
  BUYER,
  SEED_ADDRESS,
  type Checkout,
  type ErrorEnvelope,
} from "../checkout/helpers";

// Orders: placeOrder (what completion calls; issue #5 wires it to payments) tested directly, and get_order on
// REST (GET /s/:slug/orders/:id) and per-store MCP (official SDK client) with the orders:read permission.

type Order = {
  id: string;
  checkout_id: string;
  permalink_url: string;
  currency: string;
  line_items: {
    id: string;
    item: { id: string; title: string; price: number };
    quantity: { original: number; total: number; fulfilled: number };
    status: string;
  }[];
  fulfillment: {
    expectations: { method_type: string; destination: Record<string, string>; line_items: unknown[] }[];
  };
  totals: { type: string; amount: number }[];
};

let store: Store;
let otherStore: Store;
let boots: { id: string };
let socks: { id: string };
let readerKey: string; // orders:read
let plainKey: string; // no permission

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ taxRateBps: 500 });
  otherStore = await seedStore();
  boots = (await seedProduct(store, { title: "Trail Boot", variants: [{ priceMinor: 11999, inventory: 3 }] }))
    .variants[0]!;
  socks = (await seedProduct(store, { title: "Wool Socks", variants: [{ priceMinor: 1450, inventory: 50 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 599 }]);
  readerKey = (await seedPlatformKey(["orders:read"])).key;
  plainKey = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

/** A ready_for_complete checkout created with `key`. */
const readyCheckout = async (lines: { item: { id: string }; quantity: number }[], key = readerKey) => {
  const res = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: lines, buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" },
  });
  assert.equal(res.body.status, "ready_for_complete", res.text);
  return res.body;
};

describe("placeOrder (called by completion)", () => {
  test("writes the order at the checkout's totals, takes the stock, completes the checkout; a repeat returns the same order", async () => {
    const db = await getDb();
    const checkout = await readyCheckout([
      { item: { id: boots.id }, quantity: 2 },
      { item: { id: socks.id }, quantity: 1 },
    ]);
    const input = {
      checkoutId: checkout.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: "pi_1",
      now: new Date(),
    };
    const order = await placeOrder(db, input);
    assert.equal(order.checkoutId, checkout.id);
    assert.deepEqual(order.totals, checkout.totals);
    // the selected option's title as the store names it (looked up inside the order's transaction)
    assert.deepEqual((order.fulfillment as { option: unknown }).option, {
      id: "standard",
      title: "Standard",
    });
    assert.deepEqual(
      order.lineItems.map((l) => [l.variantId, l.priceMinor, l.quantity]),
      [
        [boots.id, 11999, 2],
        [socks.id, 1450, 1],
      ],
    );
    assert.equal((await db.variant.findUniqueOrThrow({ where: { id: boots.id } })).inventory, 1);
    const again = await placeOrder(db, input);
    assert.equal(again.id, order.id);
    assert.equal(
      (await db.variant.findUniqueOrThrow({ where: { id: boots.id } })).inventory,
      1,
      "stock taken once",
    );
    const got = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${checkout.id}`, {
      headers: { "x-api-key": readerKey },
    });
    assertCheckoutSchema(got.body);
    assert.equal(got.body.status, "completed");
    assert.deepEqual(got.body.order, {
      id: order.id,
      permalink_url: `http://127.0.0.1:3000/s/${store.slug}/orders/${order.id}`,
    });
    await db.variant.update({ where: { id: boots.id }, data: { inventory: 3 } });
  });

  test("the lines keep the product and variant titles, and a paid order's events are placed then paid", async () => {
    const db = await getDb();
    const jacket = (
      await seedProduct(store, {
        title: "Rain Jacket",
        variants: [
          { title: "Small", priceMinor: 8900, inventory: 4 },
          { title: "Large", priceMinor: 9100, inventory: 4 },
        ],
      })
    ).variants[1]!;
    const checkout = await readyCheckout([
      { item: { id: jacket.id }, quantity: 1 },
      { item: { id: socks.id }, quantity: 1 },
    ]);
    const before = (await db.variant.findUniqueOrThrow({ where: { id: jacket.id } })).updatedAt;
    const now = new Date();
    const order = await placeOrder(db, {
      checkoutId: checkout.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: "pi_titles",
      now,
    });
    const stored = await db.orderLineItem.findMany({
      where: { orderId: order.id },
      orderBy: { position: "asc" },
    });
    assert.deepEqual(
      stored.map((l) => l.title),
      ["Rain Jacket — Large", "Wool Socks"],
    );
    assert.deepEqual(
      order.lineItems.map((l) => l.title),
      ["Rain Jacket — Large", "Wool Socks"],
    );
    const jacketNow = await db.variant.findUniqueOrThrow({ where: { id: jacket.id } });
    assert.equal(jacketNow.inventory, 3);
    assert.ok(jacketNow.updatedAt > before, "the decrement stamps the variant's updated_at");
    const events = await db.orderEvent.findMany({
      where: { orderId: order.id },
      orderBy: { position: "asc" },
    });
    assert.deepEqual(
      events.map((e) => [e.sequence, e.kind, (e.payload as { id?: string }).id, e.storeId]),
      [
        [1, "order.placed", order.id, store.id],
        [2, "order.paid", order.id, store.id],
      ],
    );
    assert.equal(events[0]!.fannedOutAt, null);
    assert.deepEqual(
      (events[1]!.payload as { line_items: { item: { title: string } }[] }).line_items.map(
        (l) => l.item.title,
      ),
      ["Rain Jacket — Large", "Wool Socks"],
    );

    // an order placed unpaid tells one event
    const unpaid = await readyCheckout([{ item: { id: socks.id }, quantity: 1 }]);
    const placed = await placeOrder(db, {
      checkoutId: unpaid.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: null,
      now,
    });
    assert.deepEqual(
      (await db.orderEvent.findMany({ where: { orderId: placed.id } })).map((e) => [e.sequence, e.kind]),
      [[1, "order.placed"]],
    );
  });

  test("two concurrent completions place one order and take the stock once", async () => {
    const db = await getDb();
    const checkout = await readyCheckout([{ item: { id: socks.id }, quantity: 2 }]);
    const before = (await db.variant.findUniqueOrThrow({ where: { id: socks.id } })).inventory;
    const input = {
      checkoutId: checkout.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: null,
      now: new Date(),
    };
    const [a, b] = await Promise.all([placeOrder(db, input), placeOrder(db, input)]);
    assert.equal(a.id, b.id);
    assert.equal(await db.order.count({ where: { checkoutId: checkout.id } }), 1);
    assert.equal((await db.variant.findUniqueOrThrow({ where: { id: socks.id } })).inventory, before - 2);
  });

  test("stock checked again at completion: out_of_stock with the line's path, and nothing is written", async () => {
    const db = await getDb();
    const checkout = await readyCheckout([
      { item: { id: socks.id }, quantity: 1 },
      { item: { id: boots.id }, quantity: 2 },
    ]);
    const socksBefore = (await db.variant.findUniqueOrThrow({ where: { id: socks.id } })).inventory;
    await db.variant.update({ where: { id: boots.id }, data: { inventory: 1 } });
    await assert.rejects(
      placeOrder(db, {
        checkoutId: checkout.id,
        storeId: store.id,
        handlerId: "svc.card",
        paymentRef: null,
        now: new Date(),
      }),
      (error: unknown) =>
        isAppError(error) && error.code === "out_of_stock" && error.path === "$.line_items[1].quantity",
    );
    assert.equal(await db.order.count({ where: { checkoutId: checkout.id } }), 0);
    assert.equal((await db.variant.findUniqueOrThrow({ where: { id: socks.id } })).inventory, socksBefore);
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: checkout.id } })).status,
      "ready_for_complete",
    );
    await db.variant.update({ where: { id: boots.id }, data: { inventory: 3 } });
  });

  // the order's statement (the move, the order, its lines, its events) refused by its events' insert, and the
  // allowance's debit after it refused: either way the stock the read took and everything else roll back
  for (const refused of ["order_events", "spend_entries"] as const) {
    test(`the order's writes commit together or not at all: a write to ${refused} failing leaves stock, checkout, reservation and outbox as they were`, async () => {
      const db = await getDb();
      const checkout = await readyCheckout([{ item: { id: socks.id }, quantity: 2 }]);
      const total = checkout.totals.find((t) => t.type === "total")!.amount;
      const now = new Date();
      // a buyer's allowance holding this checkout's reservation, as a completion carrying an intent mandate takes it
      const allowance = await db.intentMandate.create({
        data: {
          id: `im_${randomUUID()}`,
          buyerId: "buyer-of-the-fault-test",
          clientId: "client-of-the-fault-test",
          envelope: "{}",
          currency: checkout.currency,
          expiresAt: new Date(now.getTime() + 3_600_000),
        },
      });
      await transaction((tx) =>
        reserveSpend(tx, {
          allowanceId: allowance.id,
          amount: total,
          origin: { amount: total, currency: checkout.currency },
          scope: { checkoutId: checkout.id },
          storeId: store.id,
          expiresAt: new Date(now.getTime() + 600_000),
          now,
        }),
      );
      const stock = async () => (await db.variant.findUniqueOrThrow({ where: { id: socks.id } })).inventory;
      const session = () =>
        db.checkoutSession.findUniqueOrThrow({
          where: { id: checkout.id },
          select: { status: true, version: true },
        });
      const ledger = () =>
        db.spendEntry.findMany({
          where: { allowanceId: allowance.id },
          select: { kind: true, state: true, amount: true, consumed: true },
          orderBy: { createdAt: "asc" },
        });
      const before = { stock: await stock(), session: await session(), ledger: await ledger() };
      const input = {
        checkoutId: checkout.id,
        storeId: store.id,
        handlerId: "svc.card",
        paymentRef: "pi_fault",
        now,
      };
      await db.$executeRawUnsafe(
        `CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'insert refused by the test'; END $$`,
      );
      // only this store's rows: on PostgreSQL the other test files share the database and place orders meanwhile
      await db.$executeRawUnsafe(
        `CREATE TRIGGER refuse_insert BEFORE INSERT ON ${refused} FOR EACH ROW WHEN (NEW.store_id = '${store.id}') EXECUTE FUNCTION refuse_insert()`,
      );
      try {
        await assert.rejects(placeOrder(db, input), /insert refused by the test/);
      } finally {
        await db.$executeRawUnsafe(`DROP TRIGGER refuse_insert ON ${refused}`);
        await db.$executeRawUnsafe("DROP FUNCTION refuse_insert()");
      }
      assert.equal(await db.order.count({ where: { checkoutId: checkout.id } }), 0, "no order");
      assert.equal(await db.orderLineItem.count({ where: { order: { checkoutId: checkout.id } } }), 0);
      assert.equal(await stock(), before.stock, "the stock is not taken");
      assert.deepEqual(await session(), before.session, "the checkout is neither completed nor moved");
      assert.deepEqual(await ledger(), before.ledger, "the reservation is still held, nothing debited");
      assert.deepEqual(before.ledger, [{ kind: "reservation", state: "held", amount: total, consumed: 0 }]);

      // the finisher's next try places it, and everything happens once
      const order = await placeOrder(db, input);
      assert.equal(await stock(), before.stock - 2);
      assert.equal((await session()).status, "completed");
      assert.deepEqual(await ledger(), [
        { kind: "reservation", state: "consumed", amount: total, consumed: total },
        { kind: "debit", state: "done", amount: total, consumed: 0 },
      ]);
      assert.deepEqual(
        (await db.orderEvent.findMany({ where: { orderId: order.id }, orderBy: { sequence: "asc" } })).map(
          (e) => [e.sequence, e.kind],
        ),
        [
          [1, "order.placed"],
          [2, "order.paid"],
        ],
      );
    });
  }

  test("an incomplete or canceled checkout cannot become an order; another store's id is not_found", async () => {
    const db = await getDb();
    const incomplete = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: { "x-api-key": readerKey, "idempotency-key": randomUUID() },
      body: { line_items: [{ item: { id: socks.id }, quantity: 1 }] },
    });
    const base = { storeId: store.id, handlerId: "svc.card", paymentRef: null, now: new Date() };
    await assert.rejects(
      placeOrder(db, { ...base, checkoutId: incomplete.body.id }),
      (e: unknown) => isAppError(e) && e.code === "checkout_not_modifiable",
    );
    await assert.rejects(
      placeOrder(db, { ...base, storeId: otherStore.id, checkoutId: incomplete.body.id }),
      (e: unknown) => isAppError(e) && e.code === "not_found",
    );
    assert.equal(await db.order.count({ where: { checkoutId: incomplete.body.id } }), 0);
  });
});

describe("get_order: REST GET /s/:slug/orders/:id and per-store MCP", () => {
  let order: { id: string; checkoutTotals: unknown };

  before(async () => {
    const checkout = await readyCheckout([{ item: { id: socks.id }, quantity: 3 }]);
    const placed = await placeOrder(await getDb(), {
      checkoutId: checkout.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: "pi_2",
      now: new Date(),
    });
    order = { id: placed.id, checkoutTotals: checkout.totals };
  });

  test("REST with orders:read → 200, schema-valid order snapshot", async () => {
    const res = await rest<Order>("GET", `/s/${store.slug}/orders/${order.id}`, {
      headers: { "x-api-key": readerKey },
    });
    assert.equal(res.status, 200, res.text);
    assertUcpSchema("shopping/order.json", res.body);
    const o = res.body;
    assert.equal(o.id, order.id);
    assert.deepEqual(o.totals, order.checkoutTotals);
    assert.deepEqual(
      o.line_items.map((l) => [l.item.id, l.item.price, l.quantity, l.status]),
      [[socks.id, 1450, { original: 3, total: 3, fulfilled: 0 }, "processing"]],
    );
    assert.deepEqual(o.fulfillment.expectations[0]?.destination, {
      street_address: "1 Market St",
      address_locality: "San Francisco",
      address_region: "CA",
      postal_code: "94105",
      address_country: "US",
    });
    assert.equal(o.permalink_url, `http://127.0.0.1:3000/s/${store.slug}/orders/${order.id}`);
  });

  test("REST: no orders:read → 403 insufficient_scope; anonymous → 403 insufficient_trust", async () => {
    const noScope = await rest("GET", `/s/${store.slug}/orders/${order.id}`, {
      headers: { "x-api-key": plainKey },
    });
    assert.equal(noScope.status, 403);
    assert.equal((noScope.body as unknown as ErrorEnvelope).messages[0]?.code, "insufficient_scope");
    const anon = await rest("GET", `/s/${store.slug}/orders/${order.id}`);
    assert.equal(anon.status, 403);
    assert.equal((anon.body as unknown as ErrorEnvelope).messages[0]?.code, "insufficient_trust");
  });

  test("REST isolation: another platform's orders:read key and another store's path → not_found", async () => {
    const otherReader = (await seedPlatformKey(["orders:read"])).key;
    for (const [path, key] of [
      [`/s/${store.slug}/orders/${order.id}`, otherReader],
      [`/s/${otherStore.slug}/orders/${order.id}`, readerKey],
      [`/s/${store.slug}/orders/ord_unknown`, readerKey],
    ] as const) {
      const res = await rest("GET", path, { headers: { "x-api-key": key } });
      assert.equal(res.status, 200);
      assertUcpSchema("shopping/types/error_response.json", res.body);
      assert.equal((res.body as unknown as ErrorEnvelope).messages[0]?.code, "not_found", path);
    }
  });

  test("MCP get_order (official SDK client): the same snapshot with a top-level id; without orders:read refused", async () => {
    const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": readerKey } });
    const plain = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": plainKey } });
    try {
      const result = await client.callTool({
        name: "get_order",
        arguments: { meta: toolMeta(), id: order.id },
      });
      assert.ok(!result.isError);
      assertUcpSchema("shopping/order.json", result.structuredContent);
      const viaRest = await rest("GET", `/s/${store.slug}/orders/${order.id}`, {
        headers: { "x-api-key": readerKey },
      });
      assert.deepEqual(result.structuredContent, viaRest.body);
      await assert.rejects(
        plain.callTool({ name: "get_order", arguments: { meta: toolMeta(), id: order.id } }),
        (error: unknown) => /insufficient_scope/.test(String(error)),
      );
    } finally {
      await client.close();
      await plain.close();
    }
  });
});
