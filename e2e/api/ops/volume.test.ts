import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { scopeHash } from "@/lib/idempotency/request-hash";
import { webhookWorkerStep } from "@/lib/webhooks/worker";
import { generateVolume, VolumeRefused, type VolumeResult } from "@/prisma/seed/volume";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The volume generator (npm run db:volume) at a small size: the rows it writes are consistent (every reference
// resolves, an order's total is its lines plus shipping and what its card payment charged) and the service reads
// them as its own: a generated order is served and valid UCP, a generated product is found by search, a generated
// idempotency record is the one a retried request would find, and the worker's poll finds nothing due in them.

const ORDERS = 2_000;
const IDEMPOTENCY = 2_000;
const PRODUCTS = 1_000;

let stores: Store[];
let reader: { key: string; principalId: string };
let result: VolumeResult;

const count = async (sql: string): Promise<number> => {
  const db = await getDb();
  const [row] = await db.$queryRawUnsafe<{ n: bigint | number }[]>(sql);
  return Number(row!.n);
};

before(async () => {
  await prepareTestDatabase();
  stores = [await seedStore(), await seedStore()];
  for (const store of stores) {
    for (let i = 0; i < 3; i++) {
      await seedProduct(store, {
        variants: [
          { priceMinor: 1250 + i, inventory: 5 },
          { priceMinor: 990, inventory: 0 },
        ],
      });
    }
  }
  const key = await seedPlatformKey(["orders:read"]);
  reader = { key: key.key, principalId: `key:${key.id}` };
  result = await generateVolume(await getDb(), {
    orders: ORDERS,
    idempotency: IDEMPOTENCY,
    products: PRODUCTS,
    batch: 700, // several batches, the last one partial
    principals: [reader.principalId],
    // other files may share the database (PostgreSQL runs): only this file's stores, whatever mode theirs are in
    stores: stores.map((s) => s.slug),
    force: true,
  });
});
after(closeTestDatabase);

test("row counts: each order has its checkout, card payment, 1–3 lines and events; products their variants and search documents", async () => {
  const t = result.tag;
  assert.deepEqual(result.stores.sort(), stores.map((s) => s.slug).sort());
  assert.equal(await count(`SELECT count(*) AS n FROM orders WHERE id LIKE 'ord_v${t}_%'`), ORDERS);
  assert.equal(
    await count(
      `SELECT count(*) AS n FROM checkout_sessions WHERE id LIKE 'chk_v${t}_%' AND status = 'completed'`,
    ),
    ORDERS,
  );
  assert.equal(
    await count(`SELECT count(*) AS n FROM payment_attempts WHERE id LIKE 'pay_v${t}_%' AND is_current`),
    ORDERS,
  );
  assert.equal(
    await count(`SELECT count(*) AS n FROM card_payments WHERE checkout_id LIKE 'chk_v${t}_%'`),
    ORDERS,
  );
  const lines = await count(`SELECT count(*) AS n FROM order_line_items WHERE order_id LIKE 'ord_v${t}_%'`);
  assert.ok(lines >= ORDERS * 1.9 && lines <= ORDERS * 3, `${lines} lines`);
  assert.equal(
    await count(`SELECT count(*) AS n FROM checkout_line_items WHERE checkout_id LIKE 'chk_v${t}_%'`),
    lines,
  );
  // placed + paid each, and delivered for every fifth (with its fulfilment event)
  assert.equal(
    await count(`SELECT count(*) AS n FROM order_events WHERE order_id LIKE 'ord_v${t}_%'`),
    ORDERS * 2 + ORDERS / 5,
  );
  assert.equal(
    await count(`SELECT count(*) AS n FROM order_fulfillment_events WHERE order_id LIKE 'ord_v${t}_%'`),
    ORDERS / 5,
  );
  assert.equal(
    await count(
      `SELECT count(*) AS n FROM idempotency_records WHERE id LIKE 'idem_v${t}_%' AND expires_at > now()`,
    ),
    IDEMPOTENCY,
  );
  assert.equal(await count(`SELECT count(*) AS n FROM products WHERE id LIKE 'prod_v${t}_%'`), PRODUCTS);
  assert.equal(
    await count(`SELECT count(*) AS n FROM catalog_search_documents WHERE product_id LIKE 'prod_v${t}_%'`),
    PRODUCTS,
  );
  const variants = await count(`SELECT count(*) AS n FROM variants WHERE product_id LIKE 'prod_v${t}_%'`);
  assert.ok(variants > PRODUCTS && variants <= PRODUCTS * 3, `${variants} variants`);
  // both stores got their share
  for (const store of stores) {
    assert.ok(
      (await count(
        `SELECT count(*) AS n FROM orders WHERE store_id = '${store.id}' AND id LIKE 'ord_v${t}_%'`,
      )) >=
        ORDERS / 2 - 1,
    );
  }
});

test("consistency: lines point at variants of the order's store; totals = lines + shipping = what the card charged", async () => {
  const t = result.tag;
  assert.equal(
    await count(`SELECT count(*) AS n FROM order_line_items l JOIN orders o ON o.id = l.order_id
                 LEFT JOIN variants v ON v.id = l.variant_id AND v.store_id = o.store_id
                 WHERE o.id LIKE 'ord_v${t}_%' AND v.id IS NULL`),
    0,
  );
  assert.equal(
    await count(`SELECT count(*) AS n FROM orders o
                 JOIN (SELECT order_id, sum(price_minor * quantity) AS sub FROM order_line_items GROUP BY order_id) l
                   ON l.order_id = o.id
                 JOIN payment_attempts p ON p.checkout_id = o.checkout_id AND p.is_current
                 JOIN card_payments c ON c.checkout_id = o.checkout_id
                 WHERE o.id LIKE 'ord_v${t}_%'
                   AND ((SELECT (e->>'amount')::int FROM jsonb_array_elements(o.totals) e WHERE e->>'type' = 'total') = l.sub + 599)
                   AND p.amount = l.sub + 599 AND c.amount = p.amount AND p.store_id = o.store_id`),
    ORDERS,
  );
  // per-order event sequences start at 1 and have no gap; the global feed positions are unique by construction
  assert.equal(
    await count(`SELECT count(*) AS n FROM (SELECT order_id, min(sequence) AS lo, max(sequence) AS hi, count(*) AS c
                 FROM order_events WHERE order_id LIKE 'ord_v${t}_%' GROUP BY order_id) s WHERE lo <> 1 OR hi <> c`),
    0,
  );
});

test("the service reads generated orders, products and idempotency records as its own", async () => {
  const db = await getDb();
  const order = await db.order.findFirstOrThrow({
    where: { id: { startsWith: `ord_v${result.tag}_` }, status: "delivered" },
    include: { lineItems: true, store: true },
  });
  const read = await rest<{ id: string; line_items: unknown[]; totals: { type: string; amount: number }[] }>(
    "GET",
    `/s/${order.store.slug}/orders/${order.id}`,
    { headers: { "x-api-key": reader.key } },
  );
  assert.equal(read.status, 200, read.text);
  assertUcpSchema("shopping/order.json", read.body);
  assert.equal(read.body.line_items.length, order.lineItems.length);

  const search = await rest<{ products: { id: string; title: string }[] }>("POST", "/catalog/search", {
    headers: { "request-id": "", "ucp-agent": "" },
    body: { query: "volume backpack" },
  });
  assert.equal(search.status, 200, search.text);
  assert.ok(
    search.body.products.some((p) => p.id.startsWith(`prod_v${result.tag}_`) && /backpack/i.test(p.title)),
    search.text.slice(0, 500),
  );

  // the scope hash is the service's own: a retried request with that key would find this record
  const record = await db.idempotencyRecord.findFirstOrThrow({ where: { id: `idem_v${result.tag}_7` } });
  assert.equal(scopeHash(record), record.scopeHash);
  assert.equal(record.principalId, reader.principalId);
});

test("the worker's poll finds nothing due in generated rows (events fanned out, mails sent)", async () => {
  const db = await getDb();
  const storeId = { in: stores.map((s) => s.id) };
  // scoped to this file's stores: other files may share the database
  for (const store of stores)
    assert.deepEqual(await webhookWorkerStep(new Date(), { storeId: store.id }), []);
  assert.equal(await db.webhookDelivery.count({ where: { storeId } }), 0);
  assert.equal(await db.orderEvent.count({ where: { storeId, fannedOutAt: null } }), 0);
  assert.equal(await db.order.count({ where: { storeId, confirmationMail: "pending" } }), 0);
});

test("refuses a database with a live-mode store, writing nothing", async () => {
  const db = await getDb();
  const before = await db.order.count({ where: { storeId: stores[0]!.id } });
  await db.store.update({ where: { id: stores[0]!.id }, data: { mode: "live" } });
  try {
    await assert.rejects(
      generateVolume(db, { orders: 10, idempotency: 10, products: 10 }),
      (error: unknown) => error instanceof VolumeRefused && error.message.includes(stores[0]!.slug),
    );
    assert.equal(await db.order.count({ where: { storeId: stores[0]!.id } }), before);
  } finally {
    await db.store.update({ where: { id: stores[0]!.id }, data: { mode: "test" } });
  }
});
