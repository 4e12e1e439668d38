import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { changeToWire } from "./to-wire";

// Feed cursors (pure: the HMAC key from CATALOG_CURSOR_SECRET, no database) and one change on the wire.

process.env.CATALOG_CURSOR_SECRET = "unit-test-secret-of-at-least-32-characters";
const { decodeFeedCursor, encodeFeedCursor } = await import("./cursor");

const rejectsWith = async (call: Promise<unknown>, pattern: RegExp) =>
  assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, "invalid_request");
    assert.equal(error.path, "$.pagination.cursor");
    assert.match(error.message, pattern);
    return true;
  });

test("a feed cursor round-trips its scope, position and date", async () => {
  const at = new Date("2026-12-01T10:00:00Z");
  const cursor = await encodeFeedCursor("store_a", { xid: "9001", id: "42" }, at);
  assert.deepEqual(await decodeFeedCursor(cursor, "store_a"), {
    xid: "9001",
    id: "42",
    positionAt: at.getTime(),
  });
  const global = await encodeFeedCursor(null, { xid: "1", id: "0" }, at);
  assert.deepEqual(await decodeFeedCursor(global, null), { xid: "1", id: "0", positionAt: at.getTime() });
});

test("forged, altered, foreign-scope and malformed cursors are invalid_request at $.pagination.cursor", async () => {
  const at = new Date();
  const cursor = await encodeFeedCursor("store_a", { xid: "9001", id: "42" }, at);
  const [payload, signature] = cursor.split(".") as [string, string];
  const body = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
  const altered = Buffer.from(JSON.stringify({ ...body, s: "store_b" })).toString("base64url");
  await rejectsWith(decodeFeedCursor(`${altered}.${signature}`, "store_b"), /signature mismatch/);
  await rejectsWith(
    decodeFeedCursor(`${payload}.${signature.slice(0, -2)}AA`, "store_a"),
    /signature mismatch/,
  );
  await rejectsWith(decodeFeedCursor(cursor, "store_b"), /another store's feed/);
  await rejectsWith(decodeFeedCursor(cursor, null), /a store's feed/);
  const global = await encodeFeedCursor(null, { xid: "1", id: "0" }, at);
  await rejectsWith(decodeFeedCursor(global, "store_a"), /the global feed/);
  for (const junk of ["", "abc", "a.b.c", `${payload}.`]) {
    await rejectsWith(decodeFeedCursor(junk, "store_a"), /not a cursor/);
  }
});

test("a variant change carries its state after the change in minor units; a deletion carries none", () => {
  const base = {
    xid: "5",
    id: "7",
    storeSlug: "shop",
    productId: "prod_1",
    changedAt: "2026-12-02T10:00:00.000Z",
    fields: [],
    priceMinor: null,
    listPriceMinor: null,
    currency: null,
    available: null,
  };
  assert.deepEqual(
    changeToWire({
      ...base,
      variantId: "var_1",
      kind: "updated",
      fields: ["price", "availability"],
      priceMinor: 1299,
      listPriceMinor: null,
      currency: "EUR",
      available: false,
    }),
    {
      id: "7",
      kind: "updated",
      resource: "variant",
      seller: "shop",
      product_id: "prod_1",
      variant_id: "var_1",
      changed_fields: ["price", "availability"],
      price: { amount: 1299, currency: "EUR" },
      list_price: null,
      availability: { available: false, status: "out_of_stock" },
      changed_at: "2026-12-02T10:00:00.000Z",
    },
  );
  assert.deepEqual(changeToWire({ ...base, variantId: "var_1", kind: "deleted" }), {
    id: "7",
    kind: "deleted",
    resource: "variant",
    seller: "shop",
    product_id: "prod_1",
    variant_id: "var_1",
    changed_at: "2026-12-02T10:00:00.000Z",
  });
  assert.deepEqual(changeToWire({ ...base, variantId: null, kind: "created" }), {
    id: "7",
    kind: "created",
    resource: "product",
    seller: "shop",
    product_id: "prod_1",
    changed_at: "2026-12-02T10:00:00.000Z",
  });
});
