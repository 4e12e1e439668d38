import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { movedCheckoutRecord, movedCheckoutStatement, readCheckout } from "@/lib/checkout/checkout-record";
import { moveCheckoutStatement } from "@/lib/checkout/state";
import { getDb } from "@/lib/config/db";
import { query } from "@/lib/config/sql";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// The checkout flow's own read of a session (readCheckout: one statement without Prisma's client) answers the
// record Prisma's findFirst with its lines answers, column for column, on both databases.

let store: Store;
let otherStore: Store;
let key: string;
const variants: { id: string }[] = [];

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  otherStore = await seedStore();
  for (const [i, price] of [1200, 350, 9999].entries()) {
    variants.push(
      (await seedProduct(store, { title: `Item ${i}`, variants: [{ priceMinor: price, inventory: 50 }] }))
        .variants[0]!,
    );
  }
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 300 }]);
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

const create = async (body: Record<string, unknown>) => {
  const res = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
};

const prismaRead = (id: string) =>
  getDb().then((db) =>
    db.checkoutSession.findFirst({ where: { id }, include: { lineItems: { orderBy: { position: "asc" } } } }),
  );

/** The variants of `ids` as pricing uses them, read by Prisma's client, by id. */
const prismaVariants = async (ids: string[]) =>
  (
    await (
      await getDb()
    ).variant.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        title: true,
        priceMinor: true,
        inventory: true,
        weightGrams: true,
        product: { select: { title: true, media: true, tags: true } },
      },
    })
  ).sort((a, b) => a.id.localeCompare(b.id));

/** readCheckout's answer split in the record Prisma reads and the variants read with it (by id). */
const split = (read: Awaited<ReturnType<typeof readCheckout>>) => {
  assert.ok(read);
  const { variants, ...record } = read;
  assert.ok(variants, "the lines' variants come with the session");
  return { record, variants: [...variants].sort((a, b) => a.id.localeCompare(b.id)) };
};

test("readCheckout answers Prisma's record: bare, full, with lines out of insertion order, nulls and JSON of every shape", async () => {
  const db = await getDb();
  const bare = await create({ line_items: [{ item: { id: variants[0]!.id }, quantity: 1 }] });
  const full = await create({
    line_items: [
      { item: { id: variants[2]!.id }, quantity: 3 },
      { item: { id: variants[0]!.id }, quantity: 1 },
      { item: { id: variants[1]!.id }, quantity: 7 },
    ],
    buyer: BUYER,
    shipping_address: SEED_ADDRESS,
    shipping_method_id: "standard",
    discount_codes: ["NOPE10", "ALSO-NOPE"],
  });
  // columns the API does not write on create, filled as other paths fill them (a JSON null, nested JSON, text
  // beyond ASCII, a bound buyer)
  await db.checkoutSession.update({
    where: { id: full },
    data: {
      notes: "déjà vu — 🥾",
      context: { locale: "fr-CA", nested: { list: [1, "two", null, { three: 3.5 }] } },
      attribution: [],
      boundPrincipalId: "buyer:b1:agent-a",
    },
  });
  // the lines' positions reversed against the order they were written in
  const lines = await db.checkoutLineItem.findMany({
    where: { checkoutId: full },
    orderBy: { position: "asc" },
  });
  for (const [i, line] of lines.entries()) {
    await db.checkoutLineItem.update({ where: { id: line.id }, data: { position: 10 + lines.length - i } });
  }
  // the variants as they are now, not as the session was priced: a new price and stock, a product's media
  await db.variant.update({ where: { id: variants[1]!.id }, data: { priceMinor: 415, inventory: 2 } });
  await db.product.updateMany({
    where: { variants: { some: { id: variants[2]!.id } } },
    data: { media: [{ type: "image", url: "https://img.example/boot.jpg", alt_text: "Boot — 🥾", w: 640 }] },
  });
  for (const id of [bare, full]) {
    const expected = await prismaRead(id);
    assert.ok(expected);
    const read = split(await readCheckout(store.id, id, expected.principalId));
    assert.deepEqual(read.record, expected, id);
    assert.ok(read.record.expiresAt instanceof Date && read.record.updatedAt instanceof Date);
    assert.deepEqual(read.variants, await prismaVariants(expected.lineItems.map((l) => l.variantId)), id);
  }
  const fullRecord = (await prismaRead(full))!;
  assert.deepEqual(
    fullRecord.lineItems.map((l) => l.variantId),
    [variants[1]!.id, variants[0]!.id, variants[2]!.id],
    "the lines come back by position",
  );
  assert.deepEqual(
    split(await readCheckout(store.id, full, "buyer:b1:agent-a")).record,
    fullRecord,
    "the bound principal",
  );
});

test("readCheckout finds nothing for another principal, another store or another id", async () => {
  const id = await create({ line_items: [{ item: { id: variants[0]!.id }, quantity: 2 }] });
  const { principalId } = (await prismaRead(id))!;
  assert.ok(await readCheckout(store.id, id, principalId));
  assert.equal(await readCheckout(store.id, id, "key:someone-else"), null);
  assert.equal(await readCheckout(otherStore.id, id, principalId), null);
  assert.equal(await readCheckout(store.id, `${id}x`, principalId), null);
});

test("readCheckout withRates: the store's rates for the stored destination's country and anywhere, as Prisma reads them (by position, then id)", async () => {
  const db = await getDb();
  const country = SEED_ADDRESS.country;
  await seedShippingRates(store, [
    {
      code: "express",
      title: "Exprès — 🚚",
      country,
      region: "CA",
      priceMinor: 1500,
      freeOverMinor: 20000,
      freeForTag: "gift wrap",
      minWeightGrams: 10,
      maxWeightGrams: 5000,
      minSubtotalMinor: 100,
      maxSubtotalMinor: 90000,
      minDays: 1,
      maxDays: 2,
      position: 5,
    },
    { code: "world", title: "Worldwide", country: "*", priceMinor: 2500, position: 5 },
    { code: "tied", title: "Tied", country, priceMinor: 700, position: 5 },
    { code: "elsewhere", title: "Elsewhere", country: "DE", priceMinor: 900 },
  ]);
  await db.shippingRate.updateMany({
    where: { storeId: store.id, code: "express" },
    data: { description: "Next day", carrier: "UPS" },
  });
  await seedShippingRates(otherStore, [{ code: "theirs", country, priceMinor: 100 }]);
  const shipped = await create({
    line_items: [{ item: { id: variants[0]!.id }, quantity: 1 }],
    shipping_address: SEED_ADDRESS,
  });
  const bare = await create({ line_items: [{ item: { id: variants[0]!.id }, quantity: 1 }] });
  const { principalId } = (await prismaRead(shipped))!;
  const expected = await db.shippingRate.findMany({
    where: { storeId: store.id, country: { in: [country, "*"] } },
    orderBy: [{ position: "asc" }, { id: "asc" }],
  });
  assert.ok(expected.length >= 4, "the seeded rates and the file's standard rate");
  const read = await readCheckout(store.id, shipped, principalId, { withRates: true });
  assert.deepEqual(read?.rates, { country, rows: expected });
  const { rates: _rates, ...record } = read!;
  assert.deepEqual(split(record).record, await prismaRead(shipped), "the record is unchanged by the rates");
  // without a destination there is no country to price: no rates; and none unless asked
  assert.equal((await readCheckout(store.id, bare, principalId, { withRates: true }))?.rates, undefined);
  assert.equal((await readCheckout(store.id, shipped, principalId))?.rates, undefined);
});

test("a move that answers the moved checkout answers what readCheckout reads after it; no row when it did not move", async () => {
  const db = await getDb();
  const id = await create({
    line_items: [
      { item: { id: variants[1]!.id }, quantity: 2 },
      { item: { id: variants[2]!.id }, quantity: 1 },
    ],
    buyer: BUYER,
    shipping_address: SEED_ADDRESS,
    shipping_method_id: "standard",
  });
  const before = (await prismaRead(id))!;
  // the stock the order's transaction takes before its move shows in the variants the move answers
  await db.variant.update({ where: { id: variants[2]!.id }, data: { inventory: { decrement: 1 } } });
  const move = (version: number) =>
    movedCheckoutStatement(
      moveCheckoutStatement({
        id,
        version,
        from: ["incomplete", "ready_for_complete"],
        to: "canceled",
        data: { continueToken: null, notes: "moved — ✓" },
      }),
    );
  assert.deepEqual(await query(move(before.version + 5)), [], "another version: nothing moved, no row");
  const [row] = await query(move(before.version));
  assert.ok(row, "moved");
  const moved = movedCheckoutRecord(row);
  assert.equal(moved.status, "canceled");
  assert.equal(moved.version, before.version + 1);
  assert.equal(moved.notes, "moved — ✓");
  const read = split(await readCheckout(store.id, id, before.principalId));
  assert.deepEqual(split(moved), read);
  assert.equal(read.variants.find((v) => v.id === variants[2]!.id)?.inventory, 49);
  assert.deepEqual(await query(move(moved.version)), [], "a second move from a status it left: no row");
});
