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
  TEST_BASE_URL,
} from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// seed §4 "Request-envelope rules" on /mcp and /s/<slug>/mcp: headers at the HTTP level, meta in the body, the
// exact tool error texts of seed §7, and protocol errors as JSON-RPC errors with the table's HTTP status.

type Rpc = {
  result?: { structuredContent: Record<string, unknown>; content: { type: string; text: string }[] };
  error?: { code: number; message: string; data?: { code?: string; path?: string } };
};

let store: Store;
let productId: string;
let variantId: string;
let apiKey: string;
const storeMcp = () => `/s/${store.slug}/mcp`;
const withKey = { headers: { "x-api-key": "" } };

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  const product = await seedProduct(store);
  productId = product.id;
  variantId = product.variants[0]!.id;
  apiKey = (await seedPlatformKey()).key;
  withKey.headers["x-api-key"] = apiKey;
});
after(closeTestDatabase);

const rpcError = (res: { body: unknown }) => (res.body as Rpc).error;

describe("HTTP-level envelope on both MCP endpoints", () => {
  for (const endpoint of ["/mcp", "STORE"]) {
    const path = () => (endpoint === "STORE" ? storeMcp() : "/mcp");

    test(`${endpoint}: no Request-Id → 400 with a JSON-RPC error missing_request_id`, async () => {
      const res = await mcpCall(
        path(),
        "get_product",
        { catalog: { id: productId } },
        { headers: { "request-id": "" } },
      );
      assert.equal(res.status, 400);
      assert.equal(rpcError(res)?.data?.code, "missing_request_id");
    });

    test(`${endpoint}: Request-Id is echoed on success and on errors`, async () => {
      const ok = await mcpCall(
        path(),
        "get_product",
        { catalog: { id: productId } },
        { headers: { "request-id": "mcp-ok" } },
      );
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.headers.get("request-id"), "mcp-ok");
      const bad = await mcpCall(
        path(),
        "get_product",
        { catalog: { id: productId } },
        { headers: { "request-id": "mcp-bad", "ucp-agent": "" } },
      );
      assert.equal(bad.status, 400);
      assert.equal(bad.headers.get("request-id"), "mcp-bad");
    });

    test(`${endpoint}: UCP-Agent missing / malformed / bad URL → missing_ucp_agent / invalid_ucp_agent / invalid_profile_url`, async () => {
      const cases: [string, string, number][] = [
        ["", "missing_ucp_agent", -32600],
        ['profile="open', "invalid_ucp_agent", -32600],
        ['profile="ftp://x.example/p"', "invalid_profile_url", -32001],
      ];
      for (const [value, code, rpcCode] of cases) {
        const res = await mcpCall(
          path(),
          "get_product",
          { catalog: { id: productId } },
          { headers: { "ucp-agent": value } },
        );
        assert.equal(res.status, 400, `${code}: ${res.text}`);
        assert.equal(rpcError(res)?.data?.code, code);
        assert.equal(rpcError(res)?.code, rpcCode);
      }
    });

    test(`${endpoint}: meta.ucp-agent.profile missing → "Tool get_product requires meta.ucp-agent.profile"`, async () => {
      for (const meta of [null, {}, { "ucp-agent": {} }, { "ucp-agent": { profile: "" } }]) {
        const res = await mcpCall(path(), "get_product", { catalog: { id: productId } }, { meta });
        assert.equal(rpcError(res)?.message, "Tool get_product requires meta.ucp-agent.profile");
        assert.equal(res.status, 400);
      }
    });

    test(`${endpoint}: meta profile that is not a URL → invalid_profile_url`, async () => {
      const res = await mcpCall(
        path(),
        "get_product",
        { catalog: { id: productId } },
        { meta: { "ucp-agent": { profile: "nope" } } },
      );
      assert.equal(rpcError(res)?.data?.code, "invalid_profile_url");
    });

    test(`${endpoint}: GET → 405 (stateless server, no stream)`, async () => {
      const res = await readJson(await callApp("GET", path(), { headers: envelopeHeaders() }));
      assert.equal(res.status, 405);
      assert.equal(rpcError(res)?.data?.code, "method_not_allowed");
    });

    test(`${endpoint}: malformed JSON → 400 JSON-RPC parse error -32700`, async () => {
      const res = await readJson(
        await callApp("POST", path(), {
          headers: { ...envelopeHeaders(), "content-type": "application/json" },
          rawBody: "{nope",
        }),
      );
      assert.equal(res.status, 400);
      assert.equal(rpcError(res)?.code, -32700);
      assert.equal(rpcError(res)?.data?.code, "malformed_json");
    });

    test(`${endpoint}: unknown platform key → 401 invalid_api_key`, async () => {
      const res = await mcpCall(
        path(),
        "get_product",
        { catalog: { id: productId } },
        { headers: { "x-api-key": "wrong" } },
      );
      assert.equal(res.status, 401);
      assert.equal(rpcError(res)?.data?.code, "invalid_api_key");
    });

    test(`${endpoint}: initialize and tools/list work statelessly; tools carry annotations`, async () => {
      const init = await readJson<{ result: { serverInfo: { name: string } } }>(
        await callApp("POST", path(), {
          headers: { ...envelopeHeaders(), accept: "application/json, text/event-stream" },
          body: {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "t", version: "1" },
            },
          },
        }),
      );
      assert.equal(init.status, 200, init.text);
      assert.match(init.body.result.serverInfo.name, /agent-commerce-service/);
      const list = await readJson<{
        result: { tools: { name: string; annotations: { readOnlyHint?: boolean } }[] };
      }>(
        await callApp("POST", path(), {
          headers: envelopeHeaders(),
          body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
        }),
      );
      const getProduct = list.body.result.tools.find((t) => t.name === "get_product");
      assert.equal(getProduct?.annotations.readOnlyHint, true);
    });
  }

  test("wrong content type → 415 unsupported_media_type; a body over 1 MB → 413 payload_too_large", async () => {
    const rpc = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    const wrongType = await readJson(
      await callApp("POST", storeMcp(), {
        headers: { ...envelopeHeaders(), "content-type": "text/plain" },
        rawBody: rpc,
      }),
    );
    assert.equal(wrongType.status, 415);
    assert.equal(rpcError(wrongType)?.data?.code, "unsupported_media_type");
    const big = await readJson(
      await callApp("POST", storeMcp(), {
        headers: { ...envelopeHeaders(), "content-type": "application/json" },
        rawBody: JSON.stringify({
          jsonrpc: "2.0",
          id: 10,
          method: "tools/list",
          params: { pad: "x".repeat(1_100_000) },
        }),
      }),
    );
    assert.equal(big.status, 413);
    assert.equal(rpcError(big)?.data?.code, "payload_too_large");
  });

  test("an invalid bearer alone → 401 invalid_token with WWW-Authenticate; beside a valid key it is ignored", async () => {
    const bearer = await mcpCall(
      storeMcp(),
      "get_cart",
      { id: "cart_x" },
      { headers: { authorization: "Bearer nope" } },
    );
    assert.equal(bearer.status, 401);
    assert.equal(rpcError(bearer)?.data?.code, "invalid_token");
    // seed §5 rule 2, plus RFC 9728 resource_metadata
    assert.equal(
      bearer.headers.get("www-authenticate"),
      `Bearer error="invalid_token", realm="${TEST_BASE_URL}", resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource"`,
    );
    const both = await mcpCall(
      storeMcp(),
      "get_cart",
      { id: "cart_x" },
      {
        headers: { authorization: "Bearer nope", "x-api-key": apiKey },
      },
    );
    assert.equal(both.status, 200, both.text);
  });

  test("/s/<unknown>/mcp → 404 store_not_found", async () => {
    const res = await mcpCall("/s/no-such-store/mcp", "get_product", { catalog: { id: productId } });
    assert.equal(res.status, 404);
    assert.equal(rpcError(res)?.data?.code, "store_not_found");
  });
});

describe("state-changing tools need meta[idempotency-key] (seed §4: all seven; the three cart ones exist today)", () => {
  test("create_cart, update_cart, cancel_cart without a key → the exact tool error text; nothing stored", async () => {
    const db = await getDb();
    const before = await db.cart.count({ where: { storeId: store.id } });
    const cases: [string, Record<string, unknown>][] = [
      ["create_cart", { cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] } }],
      ["update_cart", { id: "cart_x", cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] } }],
      ["cancel_cart", { id: "cart_x" }],
    ];
    for (const [tool, args] of cases) {
      const res = await mcpCall(storeMcp(), tool, args, withKey);
      assert.equal(rpcError(res)?.message, `Tool ${tool} requires meta[idempotency-key]`, tool);
      assert.equal(rpcError(res)?.data?.code, "missing_idempotency_key");
      assert.equal(res.status, 400);
    }
    assert.equal(await db.cart.count({ where: { storeId: store.id } }), before);
  });

  test("read-only tools need no key; tools/list marks the key required only on state-changing tools", async () => {
    const res = await mcpCall(storeMcp(), "get_product", { catalog: { id: productId } });
    assert.equal(res.status, 200);
    const list = await readJson<{
      result: { tools: { name: string; inputSchema: { properties: { meta: { required: string[] } } } }[] };
    }>(
      await callApp("POST", storeMcp(), {
        headers: envelopeHeaders(),
        body: { jsonrpc: "2.0", id: 3, method: "tools/list" },
      }),
    );
    const required = Object.fromEntries(
      list.body.result.tools.map((t) => [t.name, t.inputSchema.properties.meta.required]),
    );
    assert.deepEqual(required.create_cart, ["ucp-agent", "idempotency-key"]);
    assert.deepEqual(required.get_product, ["ucp-agent"]);
  });
});

describe("tool results", () => {
  test("success: HTTP 200 with result.structuredContent = the UCP body and the same JSON as text", async () => {
    const res = await mcpCall(
      storeMcp(),
      "create_cart",
      { cart: { line_items: [{ item: { id: variantId }, quantity: 2 }] } },
      { ...withKey, idempotencyKey: randomUUID() },
    );
    assert.equal(res.status, 200, res.text);
    const result = (res.body as Rpc).result!;
    assertUcpSchema("shopping/cart.json", result.structuredContent);
    assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent);
  });

  test("a business outcome is a result carrying ucp.status error (not a JSON-RPC error)", async () => {
    const res = await mcpCall(storeMcp(), "get_cart", { id: "cart_missing" }, withKey);
    assert.equal(res.status, 200);
    const content = (res.body as Rpc).result?.structuredContent;
    assertUcpSchema("shopping/types/error_response.json", content);
    assert.equal((content as { messages: { code: string }[] }).messages[0]?.code, "not_found");
  });

  test("arguments are namespaced, never flat: flat line_items → invalid_request at $.line_items", async () => {
    const res = await mcpCall(
      storeMcp(),
      "create_cart",
      { line_items: [{ item: { id: variantId }, quantity: 1 }] },
      { ...withKey, idempotencyKey: randomUUID() },
    );
    assert.equal(res.status, 400);
    assert.equal(rpcError(res)?.data?.code, "invalid_request");
    assert.equal(rpcError(res)?.code, -32602);
  });

  test("an unknown tool is a JSON-RPC method error", async () => {
    const res = await mcpCall(storeMcp(), "no_such_tool", {});
    assert.equal(rpcError(res)?.code, -32601);
  });

  test("carts need the token tier on MCP too: anonymous create_cart → 403 insufficient_trust", async () => {
    const res = await mcpCall(
      storeMcp(),
      "create_cart",
      { cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] } },
      { idempotencyKey: randomUUID() },
    );
    assert.equal(res.status, 403);
    assert.equal(rpcError(res)?.data?.code, "insufficient_trust");
  });

  test("the agent profile in meta is used (the header only needs to be valid)", async () => {
    const res = await mcpCall(
      storeMcp(),
      "get_product",
      { catalog: { id: productId } },
      { meta: { "ucp-agent": { profile: AGENT_PROFILE } } },
    );
    assert.equal(res.status, 200);
  });
});
