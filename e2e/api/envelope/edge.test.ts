import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import {
  AGENT_PROFILE,
  callApp,
  envelopeHeaders,
  mcpCall,
  readJson,
  rest,
  type JsonResponse,
} from "../../helpers/app-client";
import { assertTransportError } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Bad input stopped at the edge, on every route kind: what JSON.parse accepts but PostgreSQL or a recursive
// walker does not (NUL, lone surrogates, Infinity, deep nesting), unsafe request targets, 405s in the body of
// each surface with the Request-Id echoed, and the JSON-RPC 2.0 rules the MCP SDK's transport does not apply.

type Envelope = { code?: string; messages: { code: string; path?: string }[] };
type Rpc = {
  jsonrpc: string;
  id: unknown;
  error?: { code: number; data?: { code?: string; path?: string } };
};

let store: Store;
let variantId: string;
let apiKey: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store)).variants[0]!.id;
  apiKey = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

const cartCount = async () => (await getDb()).cart.count({ where: { storeId: store.id } });

const postCartRaw = (rawBody: string, requestId = randomUUID()) =>
  rest<Envelope>("POST", `/s/${store.slug}/carts`, {
    headers: {
      "request-id": requestId,
      "x-api-key": apiKey,
      "idempotency-key": randomUUID(),
      "content-type": "application/json",
    },
    rawBody,
  });

const assertRefused = (res: JsonResponse<Envelope>, code: string, path?: string) => {
  assert.equal(res.status, 400, res.text);
  assertTransportError(res.body);
  assert.equal(res.body.messages[0]?.code, code);
  if (path) assert.equal(res.body.messages[0]?.path, path);
};

describe("JSON bodies: refused with invalid_request and a JSONPath, nothing stored", () => {
  const item = (id: string) => `{"line_items":[{"item":{"id":${id}},"quantity":1}]}`;

  test("NUL (U+0000) in a string value, escaped or raw", async () => {
    const before = await cartCount();
    assertRefused(
      await postCartRaw(item(`"${variantId}\\u0000"`)),
      "invalid_request",
      "$.line_items[0].item.id",
    );
    assertRefused(await postCartRaw(item(`"a\u0000b"`)), "malformed_json");
    assert.equal(await cartCount(), before);
  });

  test("NUL in a property name", async () => {
    const res = await postCartRaw(
      `{"line_items":[{"item":{"id":"${variantId}","x\\u0000":1},"quantity":1}]}`,
    );
    assertRefused(res, "invalid_request", "$.line_items[0].item");
  });

  test("a lone UTF-16 surrogate (high or low) in a value or a key", async () => {
    const before = await cartCount();
    assertRefused(await postCartRaw(item('"\\ud800"')), "invalid_request", "$.line_items[0].item.id");
    assertRefused(await postCartRaw(item('"x\\udc00y"')), "invalid_request", "$.line_items[0].item.id");
    assertRefused(await postCartRaw(`{"\\ud83d":1, "line_items":[]}`), "invalid_request", "$");
    // a proper pair is text like any other
    const pair = await postCartRaw(
      `{"line_items":[{"item":{"id":"${variantId}"},"quantity":1}],"context":{"intent":"\\ud83d\\ude00"}}`,
    );
    assert.notEqual(pair.status, 500, pair.text);
    assert.equal(await cartCount(), before + (pair.status === 201 ? 1 : 0));
  });

  test("1e999 (Infinity) anywhere, including an open object", async () => {
    const before = await cartCount();
    const res = await postCartRaw(
      `{"line_items":[{"item":{"id":"${variantId}"},"quantity":1}],"context":{"x":1e999}}`,
    );
    assertRefused(res, "invalid_request", "$.context.x");
    assert.equal(await cartCount(), before);
  });

  test("JSON nested 5,000 deep → invalid_request, not a stack overflow", async () => {
    const deep = `{"line_items":[],"context":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const res = await postCartRaw(deep);
    assertRefused(res, "invalid_request");
    assert.match(res.text, /nested deeper than 64/);
  });

  test("a NUL in a catalog search query (REST and MCP) → 400, never a database error", async () => {
    const search = await rest<Envelope>("POST", `/s/${store.slug}/catalog/search`, {
      body: { query: "tent\u0000" },
    });
    assertRefused(search, "invalid_request", "$.query");
    const mcp = await mcpCall(
      `/s/${store.slug}/mcp`,
      "search_catalog",
      { catalog: { query: "tent\u0000" } },
      { headers: { "x-api-key": apiKey } },
    );
    assert.equal(mcp.status, 400, mcp.text);
    assert.equal((mcp.body as Rpc).error?.data?.code, "invalid_request");
    assert.equal((mcp.body as Rpc).error?.data?.path, "$.params.arguments.catalog.query");
  });
});

describe("request targets: path ids and query strings decoded safely", () => {
  test("a NUL in a path id → 400 in the envelope with Request-Id (was a 500 from PostgreSQL)", async () => {
    const res = await rest<Envelope>("GET", `/s/${store.slug}/orders/ord%00x`, {
      headers: { "request-id": "edge-nul-path", "x-api-key": apiKey },
    });
    assertRefused(res, "invalid_request", "path");
    assert.equal(res.headers.get("request-id"), "edge-nul-path");
  });

  test("invalid percent-encoding or NUL in a query string → 400", async () => {
    for (const query of ["?cursor=%FF", "?limit=%00", "?%E0%80=1"]) {
      const res = await rest<Envelope>("GET", `/s/${store.slug}/order-events${query}`, {
        headers: { "request-id": "edge-query", "x-api-key": apiKey },
      });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assertTransportError(res.body);
      assert.equal(res.headers.get("request-id"), "edge-query");
    }
  });
});

describe("OAuth forms", () => {
  test("a NUL in a token request's parameters → 400 invalid_request in RFC 6749 form, before any client or code lookup", async () => {
    for (const form of [
      "grant_type=authorization_code&code=abc%00def&redirect_uri=https%3A%2F%2Fa.example%2Fcb&client_id=x&code_verifier=v",
      "grant_type=refresh_token&refresh_token=%00&client_id=x",
    ]) {
      const res = await readJson<{ error?: string }>(
        await callApp("POST", "/ucp/oauth2/token", {
          headers: { "content-type": "application/x-www-form-urlencoded", "request-id": "edge-oauth" },
          rawBody: form,
        }),
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, "invalid_request");
      assert.equal(res.headers.get("request-id"), "edge-oauth");
    }
  });
});

describe("405s: a body in the surface's shape and the Request-Id, on every route kind", () => {
  const call = async (method: string, path: string) =>
    readJson<Record<string, unknown>>(
      await callApp(method, path, { headers: { ...envelopeHeaders(), "request-id": "edge-405" } }),
    );

  test("OAuth token, revocation, authorization, JWKS and metadata: RFC 6749 error JSON", async () => {
    for (const [method, path, allow] of [
      ["GET", "/ucp/oauth2/token", "POST"],
      ["PUT", "/ucp/oauth2/revoke", "POST"],
      ["POST", "/ucp/oauth2/authorize", "GET"],
      ["POST", "/ucp/oauth2/jwks", "GET"],
      ["DELETE", "/.well-known/oauth-authorization-server", "GET"],
      ["POST", "/.well-known/oauth-protected-resource", "GET"],
    ] as const) {
      const res = await call(method, path);
      assert.equal(res.status, 405, `${method} ${path}: ${res.text}`);
      assert.equal(res.headers.get("allow"), allow);
      assert.equal(res.headers.get("request-id"), "edge-405");
      assert.equal(res.body.error, "invalid_request", path);
      assert.equal(typeof res.body.error_description, "string");
    }
  });

  test("Stripe webhook and the pay page's form target: the UCP envelope", async () => {
    for (const path of [`/s/${store.slug}/stripe/webhook`, `/s/${store.slug}/pay/tok/submit`]) {
      const res = await call("GET", path);
      assert.equal(res.status, 405, `${path}: ${res.text}`);
      assert.equal(res.headers.get("request-id"), "edge-405");
      assertTransportError(res.body);
      assert.equal(res.body.code, "method_not_allowed");
    }
  });

  test("MCP endpoints: a JSON-RPC error", async () => {
    for (const path of ["/mcp", `/s/${store.slug}/mcp`, "/account/mcp"]) {
      const res = await call("GET", path);
      assert.equal(res.status, 405, `${path}: ${res.text}`);
      assert.equal(res.headers.get("allow"), "POST");
      assert.equal(res.headers.get("request-id"), "edge-405");
      assert.equal((res.body as Rpc).error?.data?.code, "method_not_allowed");
    }
  });
});

describe("JSON-RPC 2.0 on MCP", () => {
  const post = async (body: unknown) =>
    readJson<Rpc | Rpc[]>(
      await callApp("POST", `/s/${store.slug}/mcp`, {
        headers: { ...envelopeHeaders(), "x-api-key": apiKey, accept: "application/json, text/event-stream" },
        body,
      }),
    );
  const createCart = (extra: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    method: "tools/call",
    params: {
      name: "create_cart",
      arguments: {
        meta: { "ucp-agent": { profile: AGENT_PROFILE }, "idempotency-key": randomUUID() },
        cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
      },
    },
    ...extra,
  });

  test("an empty batch [] → one -32600 error (not 202 with no body)", async () => {
    const res = await post([]);
    assert.equal(res.status, 400, res.text);
    const body = res.body as Rpc;
    assert.equal(Array.isArray(res.body), false);
    assert.equal(body.error?.code, -32600);
    assert.equal(body.id, null);
  });

  test('jsonrpc "1.0", a missing method or a non-object → -32600 with the request id; nothing stored', async () => {
    const before = await cartCount();
    for (const [message, id] of [
      [createCart({ jsonrpc: "1.0", id: 7 }), 7],
      [{ jsonrpc: "2.0", id: "x" }, "x"],
      [42, null],
    ] as const) {
      const res = await post(message);
      assert.equal(res.status, 400, res.text);
      assert.equal((res.body as Rpc).error?.code, -32600, res.text);
      assert.equal((res.body as Rpc).id, id);
    }
    assert.equal(await cartCount(), before);
  });

  test("a batch with an invalid member is refused whole; none of it runs", async () => {
    const before = await cartCount();
    const res = await post([createCart({ id: 1 }), { jsonrpc: "1.0", id: 2, method: "ping" }]);
    assert.equal(res.status, 400, res.text);
    const errors = res.body as Rpc[];
    assert.deepEqual(
      errors.map((e) => [e.id, e.error?.code]),
      [[2, -32600]],
    );
    assert.equal(await cartCount(), before);
  });

  test("a tools/call sent as a notification (no id) → 202 with no body and nothing runs", async () => {
    const before = await cartCount();
    const res = await post(createCart({}));
    assert.equal(res.status, 202, res.text);
    assert.equal(res.text, "");
    assert.equal(await cartCount(), before);
  });

  test("the UCP-Agent header and meta must name the same profile; nothing stored otherwise", async () => {
    const before = await cartCount();
    const res = await mcpCall(
      `/s/${store.slug}/mcp`,
      "create_cart",
      { cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] } },
      {
        headers: {
          "x-api-key": apiKey,
          "ucp-agent": 'profile="https://other-agent.example/.well-known/ucp"',
        },
        idempotencyKey: randomUUID(),
      },
    );
    assert.equal(res.status, 400, res.text);
    assert.equal((res.body as Rpc).error?.data?.code, "invalid_ucp_agent");
    assert.equal(await cartCount(), before);
  });
});
