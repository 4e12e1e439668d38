import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import fc from "fast-check";
import { z } from "zod";

import { getDb } from "@/lib/config/db";
import type { AnyOperation } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { echoableRequestId } from "@/lib/http/request-envelope";
import { toolInputSchema } from "@/lib/mcp/tool-schema";
import { GLOBAL_TOOLS } from "@/lib/mcp/tools/global";
import { STORE_TOOLS } from "@/lib/mcp/tools/store";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { AGENT_PROFILE, callApp, envelopeHeaders, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { fromSchema, headerValue, pathSegment, rawBody, toJsonText } from "./arbitraries";

// A bounded property-based run over every operation of the registry (the store MCP's tools, which include the
// global ones), on REST and on MCP, plus raw bytes in paths, headers and bodies. For every call: never a 5xx;
// an error answer is well formed for its surface (UCP envelope with the transport `code`/`content`, or a JSON-RPC
// error) and echoes the Request-Id that was sent; and a refused call (non-2xx) changes nothing stored.
// Reproducible: the seed is printed; FUZZ_SEED=<n> replays a run, FUZZ_RUNS=<n> scales it (default keeps CI short).

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);

let store: Store;
let key: string;
/** The fuzzing platform key's principal id (its idempotency records). */
let principalId = "";
let ids: string[] = [];

/**
 * What a refused call must leave untouched: row counts and the latest updated_at of the mutable tables, in this
 * file's store (other test files write to the same PostgreSQL at the same time).
 */
const snapshot = async () => {
  const db = await getDb();
  const storeId = store.id;
  const [carts, cartLines, checkouts, checkoutLines, orders, idem, events, deliveries, attempts] =
    await Promise.all([
      db.cart.aggregate({ where: { storeId }, _count: true, _max: { updatedAt: true } }),
      db.cartLineItem.count({ where: { cart: { storeId } } }),
      db.checkoutSession.aggregate({ where: { storeId }, _count: true, _max: { updatedAt: true } }),
      db.checkoutLineItem.count({ where: { checkout: { storeId } } }),
      db.order.aggregate({ where: { storeId }, _count: true, _max: { updatedAt: true } }),
      db.idempotencyRecord.count({ where: { storeSlug: { in: [store.slug, ""] }, principalId } }),
      db.orderEvent.count({ where: { storeId } }),
      db.webhookDelivery.count({ where: { storeId } }),
      db.paymentAttempt.count({ where: { storeId } }),
    ]);
  return JSON.stringify({
    carts,
    cartLines,
    checkouts,
    checkoutLines,
    orders,
    idem,
    events,
    deliveries,
    attempts,
  });
};

type Surface = "rest" | "mcp";

/** Sends one call and checks the properties every answer must have. */
const check = async (
  surface: Surface,
  label: string,
  send: () => Promise<Response>,
  sentRequestId: string | undefined,
): Promise<void> => {
  const before = await snapshot();
  const res = await send();
  const text = await res.text();
  const where = `${label} → ${res.status} ${text.slice(0, 300)}`;
  assert.ok(res.status < 500, `no 5xx: ${where}`);
  if (res.status < 400) return;
  const expectedId =
    sentRequestId === undefined ? null : echoableRequestId(new Headers({ "request-id": sentRequestId }));
  if (expectedId) assert.equal(res.headers.get("request-id"), expectedId, `Request-Id echoed: ${where}`);
  assert.match(res.headers.get("content-type") ?? "", /json/, `a JSON error body: ${where}`);
  const body = JSON.parse(text) as Record<string, unknown> | Record<string, unknown>[];
  if (surface === "rest") {
    const envelope = body as {
      ucp?: { status?: string };
      messages?: { code?: string }[];
      code?: unknown;
      content?: unknown;
    };
    assert.equal(envelope.ucp?.status, "error", `UCP error envelope: ${where}`);
    assert.equal(typeof envelope.code, "string", `transport code: ${where}`);
    assert.equal(envelope.code, envelope.messages?.[0]?.code, where);
    assert.equal(typeof envelope.content, "string", `transport content: ${where}`);
  } else {
    for (const message of Array.isArray(body) ? body : [body]) {
      const rpc = message as { jsonrpc?: string; error?: { code?: unknown; message?: unknown } };
      assert.equal(rpc.jsonrpc, "2.0", where);
      assert.equal(typeof rpc.error?.code, "number", `JSON-RPC error code: ${where}`);
      assert.equal(typeof rpc.error?.message, "string", where);
    }
  }
  assert.equal(await snapshot(), before, `a refused call changes nothing stored: ${where}`);
};

/** The REST binding of each operation (UCP's paths; the MCP-only tools have none). */
const REST_ROUTES: Record<string, { method: string; path: (slug: string, id: string) => string } | null> = {
  get_product: { method: "POST", path: (s) => `/s/${s}/catalog/product` },
  search_catalog: { method: "POST", path: (s) => `/s/${s}/catalog/search` },
  lookup_catalog: { method: "POST", path: (s) => `/s/${s}/catalog/lookup` },
  list_catalog_changes: { method: "POST", path: (s) => `/s/${s}/catalog/changes` },
  create_cart: { method: "POST", path: (s) => `/s/${s}/carts` },
  get_cart: { method: "GET", path: (s, id) => `/s/${s}/carts/${id}` },
  update_cart: { method: "PUT", path: (s, id) => `/s/${s}/carts/${id}` },
  cancel_cart: { method: "POST", path: (s, id) => `/s/${s}/carts/${id}/cancel` },
  create_checkout: { method: "POST", path: (s) => `/s/${s}/checkout-sessions` },
  get_checkout: { method: "GET", path: (s, id) => `/s/${s}/checkout-sessions/${id}` },
  update_checkout: { method: "PUT", path: (s, id) => `/s/${s}/checkout-sessions/${id}` },
  cancel_checkout: { method: "POST", path: (s, id) => `/s/${s}/checkout-sessions/${id}/cancel` },
  complete_checkout: { method: "POST", path: (s, id) => `/s/${s}/checkout-sessions/${id}/complete` },
  prepare_checkout_payment: {
    method: "POST",
    path: (s, id) => `/s/${s}/checkout-sessions/${id}/payment-intent`,
  },
  get_order: { method: "GET", path: (s, id) => `/s/${s}/orders/${id}` },
  request_order_cancellation: {
    method: "POST",
    path: (s, id) => `/s/${s}/orders/${id}/cancellation-requests`,
  },
  request_order_refund: { method: "POST", path: (s, id) => `/s/${s}/orders/${id}/refund-requests` },
  list_order_events: { method: "GET", path: (s) => `/s/${s}/order-events` },
  list_webhook_deliveries: { method: "GET", path: (s) => `/s/${s}/webhook-deliveries` },
  redeliver_webhook: { method: "POST", path: (s, id) => `/s/${s}/webhook-deliveries/${id}/redeliver` },
  search_locations: null,
  lookup_locations: null,
};

const OPERATIONS: readonly AnyOperation[] = [...new Set([...STORE_TOOLS, ...GLOBAL_TOOLS])];

const restBodySchema = (op: AnyOperation) =>
  z.toJSONSchema(op.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  const product = await seedProduct(store);
  const created = await seedPlatformKey(["purchase:complete", "orders:read"]);
  key = created.key;
  principalId = `key:${created.id}`;
  const headers = { "x-api-key": key, "idempotency-key": randomUUID() };
  const cart = await rest<{ id: string }>("POST", `/s/${store.slug}/carts`, {
    headers,
    body: { line_items: [{ item: { id: product.variants[0]!.id }, quantity: 1 }] },
  });
  const checkout = await rest<{ id: string }>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: product.variants[0]!.id }, quantity: 1 }] },
  });
  ids = [product.id, product.variants[0]!.id, cart.body.id, checkout.body.id, "ord_missing", store.slug];
});
after(closeTestDatabase);

test("every registry operation has a REST binding or is declared MCP-only", () => {
  for (const op of OPERATIONS)
    assert.ok(op.name in REST_ROUTES, `${op.name} is fuzzed on REST or listed as MCP-only`);
});

describe(`fuzz (fast-check seed ${SEED}, ${RUNS} runs per operation and surface)`, () => {
  const params = { seed: SEED, numRuns: RUNS, endOnFailure: true } as const;

  for (const op of OPERATIONS) {
    const route = REST_ROUTES[op.name];
    if (route) {
      test(`REST ${op.name}`, async (t) => {
        t.diagnostic(`seed ${SEED}`);
        const body = fromSchema(restBodySchema(op), { strings: ids, hostility: 0.08 });
        await fc.assert(
          fc.asyncProperty(body, fc.constantFrom(...ids), fc.boolean(), async (input, id, keyed) => {
            const requestId = randomUUID();
            const headers: Record<string, string> = {
              ...envelopeHeaders({ "request-id": requestId }),
              ...(keyed ? { "x-api-key": key } : {}),
              ...(op.mutates ? { "idempotency-key": randomUUID() } : {}),
            };
            const hasBody = route.method !== "GET";
            if (hasBody) headers["content-type"] = "application/json";
            await check(
              "rest",
              `${route.method} ${op.name} ${toJsonText(input).slice(0, 200)}`,
              () =>
                callApp(route.method, route.path(store.slug, id), {
                  headers,
                  ...(hasBody ? { rawBody: toJsonText(input) } : {}),
                }),
              requestId,
            );
          }),
          params,
        );
      });
    }

    test(`MCP ${op.name}`, async (t) => {
      t.diagnostic(`seed ${SEED}`);
      const args = fromSchema(toolInputSchema(op), { strings: ids, hostility: 0.08 });
      const validMeta = fc.constant(null).map(() => ({
        "ucp-agent": { profile: AGENT_PROFILE },
        ...(op.mutates ? { "idempotency-key": randomUUID() } : {}),
      }));
      await fc.assert(
        fc.asyncProperty(args, fc.option(validMeta, { freq: 5 }), fc.boolean(), async (raw, meta, keyed) => {
          const requestId = randomUUID();
          const argumentsValue =
            typeof raw === "object" && raw !== null && !Array.isArray(raw) && meta !== null
              ? { ...raw, meta }
              : raw;
          const message = {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: op.name, arguments: argumentsValue },
          };
          await check(
            "mcp",
            `MCP ${op.name} ${toJsonText(argumentsValue).slice(0, 200)}`,
            () =>
              callApp("POST", `/s/${store.slug}/mcp`, {
                headers: {
                  ...envelopeHeaders({ "request-id": requestId }),
                  ...(keyed ? { "x-api-key": key } : {}),
                  accept: "application/json, text/event-stream",
                  "content-type": "application/json",
                },
                rawBody: toJsonText(message),
              }),
            requestId,
          );
        }),
        params,
      );
    });
  }

  test("raw bytes in path ids (REST)", async (t) => {
    t.diagnostic(`seed ${SEED}`);
    const withId = Object.entries(REST_ROUTES).filter(([, r]) => r && r.path("s", "ID").includes("ID"));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withId), pathSegment(ids), async ([name, route], segment) => {
        const requestId = randomUUID();
        const isGet = route!.method === "GET";
        await check(
          "rest",
          `${route!.method} ${name} /${segment}`,
          () =>
            callApp(route!.method, route!.path(store.slug, segment), {
              headers: {
                ...envelopeHeaders({ "request-id": requestId }),
                "x-api-key": key,
                "idempotency-key": randomUUID(),
                ...(isGet ? {} : { "content-type": "application/json" }),
              },
              ...(isGet ? {} : { rawBody: "{}" }),
            }),
          requestId,
        );
      }),
      { ...params, numRuns: RUNS * 6 },
    );
  });

  test("raw header values (REST create_cart and MCP)", async (t) => {
    t.diagnostic(`seed ${SEED}`);
    const names = [
      "request-id",
      "ucp-agent",
      "idempotency-key",
      "x-api-key",
      "authorization",
      "content-type",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Surface>("rest", "mcp"),
        fc.dictionary(fc.constantFrom(...names), headerValue, { maxKeys: 3 }),
        async (surface, overrides) => {
          const headers: Record<string, string> = {
            ...envelopeHeaders(),
            "x-api-key": key,
            "idempotency-key": randomUUID(),
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...overrides,
          };
          const body =
            surface === "rest"
              ? { line_items: [{ item: { id: ids[1] }, quantity: 1 }] }
              : {
                  jsonrpc: "2.0",
                  id: 1,
                  method: "tools/call",
                  params: {
                    name: "get_cart",
                    arguments: { meta: { "ucp-agent": { profile: AGENT_PROFILE } }, id: ids[2] },
                  },
                };
          const path = surface === "rest" ? `/s/${store.slug}/carts` : `/s/${store.slug}/mcp`;
          await check(
            surface,
            `${surface} headers ${JSON.stringify(overrides).slice(0, 200)}`,
            () => callApp("POST", path, { headers, rawBody: JSON.stringify(body) }),
            headers["request-id"],
          );
        },
      ),
      { ...params, numRuns: RUNS * 6 },
    );
  });

  test("raw body bytes (REST create_cart and MCP)", async (t) => {
    t.diagnostic(`seed ${SEED}`);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Surface>("rest", "mcp"), rawBody, async (surface, bytes) => {
        const requestId = randomUUID();
        const path = surface === "rest" ? `/s/${store.slug}/carts` : `/s/${store.slug}/mcp`;
        await check(
          surface,
          `${surface} body ${Buffer.from(bytes).toString("hex").slice(0, 80)}`,
          () =>
            callApp("POST", path, {
              headers: {
                ...envelopeHeaders({ "request-id": requestId }),
                "x-api-key": key,
                "idempotency-key": randomUUID(),
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
              },
              rawBody: bytes,
            }),
          requestId,
        );
      }),
      { ...params, numRuns: RUNS * 6 },
    );
  });
});
