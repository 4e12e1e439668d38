import assert from "node:assert/strict";
import { test } from "node:test";

import { tablesWritten } from "./row-cache";

test("tablesWritten: the table a statement starts by writing, as Prisma and our SQL name it", () => {
  assert.deepEqual(tablesWritten(`UPDATE "public"."stores" SET "name" = $1 WHERE "id" = $2`), ["stores"]);
  assert.deepEqual(tablesWritten(`  insert into platform_api_keys (id) VALUES ($1)`), ["platform_api_keys"]);
  assert.deepEqual(tablesWritten(`DELETE FROM ONLY public.shipping_rates WHERE id = $1`), ["shipping_rates"]);
  assert.deepEqual(tablesWritten(`UPDATE variants AS v SET inventory = v.inventory - 1`), ["variants"]);
  assert.deepEqual(tablesWritten(`SELECT * FROM stores WHERE id = $1 FOR UPDATE`), []);
  assert.deepEqual(tablesWritten(`SELECT 'UPDATE stores SET x' AS text`), []);
  assert.deepEqual(tablesWritten("BEGIN"), []);
});

test("tablesWritten: every table a TRUNCATE lists", () => {
  assert.deepEqual(tablesWritten(`TRUNCATE TABLE "public"."stores", oauth_clients CASCADE`), [
    "stores",
    "oauth_clients",
  ]);
  assert.deepEqual(tablesWritten("TRUNCATE buyer_consents"), ["buyer_consents"]);
});

test("tablesWritten: a WITH's data-modifying CTEs and its main statement, not the tables it only reads", () => {
  assert.deepEqual(
    tablesWritten(
      `WITH c AS (UPDATE payment_attempts SET is_current = false WHERE id = $1 RETURNING *),
            placed AS (INSERT INTO orders (id) VALUES ($2)),
            events AS (INSERT INTO "public"."order_events" (id) VALUES ($3))
       SELECT c.id, (SELECT count(*) FROM stores) FROM c`,
    ),
    ["payment_attempts", "orders", "order_events"],
  );
  assert.deepEqual(tablesWritten(`WITH s AS (SELECT id FROM stores) DELETE FROM platform_api_keys`), [
    "platform_api_keys",
  ]);
  assert.deepEqual(tablesWritten(`WITH s AS (SELECT id FROM stores) SELECT * FROM s`), []);
});
