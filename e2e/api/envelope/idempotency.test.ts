import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";
import { requestHash, scopeHash } from "@/lib/idempotency/request-hash";
import { IDEMPOTENCY_RETENTION_MS } from "@/lib/idempotency/with-idempotency";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { mcpCall, rest } from "../../helpers/app-client";
import { assertTransportError } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// DECISIONS.md B8: replay byte for byte, mismatch 409, in-flight 409 + Retry-After, ≥ 48 h retention, expired
// records purged — on REST and MCP, with one scope across both transports.

let store: Store;
let variantId: string;
let key: { id: string; key: string };

const body = (quantity = 1) => ({ line_items: [{ item: { id: variantId }, quantity }] });
const postCart = (idem: string, payload: unknown = body()) =>
  rest("POST", `/s/${store.slug}/carts`, {
    headers: { "x-api-key": key.key, "idempotency-key": idem },
    body: payload,
  });
const mcpCreate = (idem: string | undefined, payload: unknown = body()) =>
  mcpCall(
    `/s/${store.slug}/mcp`,
    "create_cart",
    { cart: payload },
    { headers: { "x-api-key": key.key }, idempotencyKey: idem },
  );
const carts = async () => (await getDb()).cart.count({ where: { storeId: store.id } });
const records = async (k: string) => (await getDb()).idempotencyRecord.findMany({ where: { key: k } });

/** An idempotency record as a concurrent (or crashed) first call would have left it; lock relative to now. */
const seedInFlightRecord = async (idem: string, lockMs: number) => {
  const now = Date.now();
  await (
    await getDb()
  ).idempotencyRecord.create({
    data: {
      id: newId("idempotency"),
      scopeHash: scopeHash({
        principalId: `key:${key.id}`,
        storeSlug: store.slug,
        operation: "create_cart",
        key: idem,
      }),
      principalId: `key:${key.id}`,
      storeSlug: store.slug,
      operation: "create_cart",
      key: idem,
      requestHash: requestHash("create_cart", body()),
      lockedUntil: new Date(now + lockMs),
      expiresAt: new Date(now + IDEMPOTENCY_RETENTION_MS),
    },
  });
};

type RpcBody = {
  result?: { structuredContent: { id: string } };
  error?: { code: number; message: string; data: { code: string } };
};

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 1250, inventory: 50 }] })).variants[0]!.id;
  key = await seedPlatformKey();
});
after(closeTestDatabase);

describe("REST Idempotency-Key", () => {
  test("same key + same body → the stored response byte for byte; the cart is created once", async () => {
    const idem = randomUUID();
    const first = await postCart(idem);
    assert.equal(first.status, 201);
    const count = await carts();
    const second = await postCart(idem);
    assert.equal(second.status, 201);
    assert.equal(second.text, first.text, "byte for byte");
    assert.equal(second.headers.get("idempotent-replayed"), "true");
    assert.equal(await carts(), count, "no second cart");
  });

  test("one key sent six times at once: one cart; every answer is that cart or in flight, never a second one", async () => {
    const idem = randomUUID();
    const count = await carts();
    const answers = await Promise.all(Array.from({ length: 6 }, () => postCart(idem)));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1, answers.map((a) => a.status).join(","));
    assert.equal(new Set(created.map((a) => a.text)).size, 1, "one cart, the same answer");
    for (const a of answers.filter((x) => x.status !== 201)) {
      assert.equal(a.status, 409, a.text);
      assert.equal((a.body as { messages: { code: string }[] }).messages[0]?.code, "idempotency_in_flight");
    }
    assert.equal(await carts(), count + 1);
    assert.equal((await postCart(idem)).text, created[0]!.text, "the retry replays it");
  });

  test("the same body with keys in another order is the same call (JCS fingerprint)", async () => {
    const idem = randomUUID();
    const first = await postCart(idem, { line_items: [{ item: { id: variantId }, quantity: 2 }] });
    const second = await postCart(idem, { line_items: [{ quantity: 2, item: { id: variantId } }] });
    assert.equal(second.text, first.text);
  });

  test("same key + different body → 409 idempotency_key_reused; nothing changes", async () => {
    const idem = randomUUID();
    const first = await postCart(idem, body(1));
    const count = await carts();
    const second = await postCart(idem, body(2));
    assert.equal(second.status, 409);
    assertTransportError(second.body);
    assert.equal(
      (second.body as { messages: { code: string }[] }).messages[0]?.code,
      "idempotency_key_reused",
    );
    assert.equal(await carts(), count);
    assert.equal((await postCart(idem, body(1))).text, first.text, "the original still replays");
  });

  test("a key still in flight → 409 idempotency_in_flight with Retry-After", async () => {
    const idem = randomUUID();
    await seedInFlightRecord(idem, 20_000);
    const count = await carts();
    const res = await postCart(idem);
    assert.equal(res.status, 409);
    assert.equal((res.body as { messages: { code: string }[] }).messages[0]?.code, "idempotency_in_flight");
    const retryAfter = Number(res.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 20, `Retry-After ${retryAfter}`);
    assert.equal(await carts(), count);
  });

  test("an abandoned in-flight record (its lock expired) is taken over and the call runs", async () => {
    const idem = randomUUID();
    await seedInFlightRecord(idem, -1_000);
    const res = await postCart(idem);
    assert.equal(res.status, 201, res.text);
    const [record] = await records(idem);
    assert.equal(record?.state, "done");
  });

  test("records are kept ≥ 48 h; an expired record is purged and the key runs afresh", async () => {
    const idem = randomUUID();
    const first = await postCart(idem);
    const [record] = await records(idem);
    assert.ok(record);
    assert.ok(record.expiresAt.getTime() - record.createdAt.getTime() >= 48 * 3600_000);
    await (
      await getDb()
    ).idempotencyRecord.update({
      where: { id: record.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const again = await postCart(idem);
    assert.equal(again.status, 201);
    assert.notEqual(
      (again.body as { id: string }).id,
      (first.body as { id: string }).id,
      "a new cart: the old record expired",
    );
  });

  test("a failed business outcome is stored too: the retry sees the same answer", async () => {
    const idem = randomUUID();
    const ghost = `var_ghost${randomUUID().slice(0, 8)}`;
    const first = await postCart(idem, { line_items: [{ item: { id: ghost }, quantity: 1 }] });
    assert.equal(first.status, 200);
    assert.equal((first.body as { messages: { code: string }[] }).messages[0]?.code, "item_unavailable");
    // the variant appears afterwards; a retry with the same key must still see the first answer
    const product = await seedProduct(store);
    await (await getDb()).variant.update({ where: { id: product.variants[0]!.id }, data: { id: ghost } });
    const second = await postCart(idem, { line_items: [{ item: { id: ghost }, quantity: 1 }] });
    assert.equal(second.text, first.text);
  });

  test("scope is per principal: another platform's key with the same key string runs its own call", async () => {
    const idem = randomUUID();
    const mine = await postCart(idem);
    const other = await seedPlatformKey();
    const theirs = await rest("POST", `/s/${store.slug}/carts`, {
      headers: { "x-api-key": other.key, "idempotency-key": idem },
      body: body(),
    });
    assert.equal(theirs.status, 201);
    assert.notEqual((theirs.body as { id: string }).id, (mine.body as { id: string }).id);
  });
});

describe("MCP meta[idempotency-key]", () => {
  test("same key → same structuredContent, one cart; different arguments → HTTP 409 + JSON-RPC error", async () => {
    const idem = randomUUID();
    const first = await mcpCreate(idem);
    const firstBody = first.body as RpcBody;
    assert.equal(first.status, 200, first.text);
    assert.ok(firstBody.result);
    const count = await carts();
    const second = await mcpCreate(idem);
    assert.deepEqual((second.body as RpcBody).result, firstBody.result);
    assert.equal(await carts(), count);

    const mismatch = await mcpCreate(idem, body(3));
    assert.equal(mismatch.status, 409);
    const error = (mismatch.body as RpcBody).error;
    assert.equal(error?.code, -32000);
    assert.equal(error?.data.code, "idempotency_key_reused");
    assert.equal(await carts(), count);
  });

  test("a key still in flight → HTTP 409, JSON-RPC error idempotency_in_flight with retry_after", async () => {
    const idem = randomUUID();
    await seedInFlightRecord(idem, 20_000);
    const res = await mcpCreate(idem);
    assert.equal(res.status, 409);
    const error = (res.body as RpcBody & { error?: { data: { retry_after?: number } } }).error;
    assert.equal(error?.data.code, "idempotency_in_flight");
    assert.ok((error?.data.retry_after ?? 0) >= 1);
  });

  test("one scope across transports: a REST create retried over MCP with the same key replays the same cart", async () => {
    const idem = randomUUID();
    const viaRest = await postCart(idem);
    const viaMcp = await mcpCreate(idem);
    assert.equal((viaMcp.body as RpcBody).result?.structuredContent.id, (viaRest.body as { id: string }).id);
  });
});
