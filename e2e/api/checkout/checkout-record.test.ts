import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { readCheckout } from "@/lib/checkout/checkout-record";
import { getDb } from "@/lib/config/db";
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
  for (const id of [bare, full]) {
    const expected = await prismaRead(id);
    assert.ok(expected);
    const read = await readCheckout(store.id, id, expected.principalId);
    assert.deepEqual(read, expected, id);
    assert.ok(read!.expiresAt instanceof Date && read!.updatedAt instanceof Date);
  }
  const fullRecord = (await prismaRead(full))!;
  assert.deepEqual(
    fullRecord.lineItems.map((l) => l.variantId),
    [variants[1]!.id, variants[0]!.id, variants[2]!.id],
    "the lines come back by position",
  );
  assert.deepEqual(await readCheckout(store.id, full, "buyer:b1:agent-a"), fullRecord, "the bound principal");
});

test("readCheckout finds nothing for another principal, another store or another id", async () => {
  const id = await create({ line_items: [{ item: { id: variants[0]!.id }, quantity: 2 }] });
  const { principalId } = (await prismaRead(id))!;
  assert.ok(await readCheckout(store.id, id, principalId));
  assert.equal(await readCheckout(store.id, id, "key:someone-else"), null);
  assert.equal(await readCheckout(otherStore.id, id, principalId), null);
  assert.equal(await readCheckout(store.id, `${id}x`, principalId), null);
});
