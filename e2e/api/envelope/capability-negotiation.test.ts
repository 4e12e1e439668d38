import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, readJson } from "../../helpers/app-client";
import { connectMcpClient } from "../../helpers/mcp-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// UCP capability negotiation (overview.md "Negotiation Protocol", "Intersection Algorithm", "Response Capability
// Selection"): a response lists only capabilities both sides declare, extensions whose parent is not negotiated
// are dropped, and an operation whose capability is not in common answers capabilities_incompatible (a business
// outcome: HTTP 200 / an MCP result) without creating anything.

const profiles = await profileServer();

type Body = {
  id?: string;
  ucp: { status?: string; capabilities?: Record<string, unknown> };
  messages?: { code: string; content: string; severity: string }[];
};

let store: Store;
let variantId: string;
let key: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 10 }] })).variants[0]!.id;
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

const declaring = (name: `agent-${string}`, capabilities: string[]) =>
  profiles.publish(name, [], { capabilities });

const post = async (path: string, body: unknown, profile: string) =>
  readJson<Body>(
    await callApp("POST", `/s/${store.slug}${path}`, {
      headers: {
        "request-id": randomUUID(),
        "ucp-agent": `profile="${profile}"`,
        "idempotency-key": randomUUID(),
        "x-api-key": key,
      },
      body,
    }),
  );

const lines = () => ({ line_items: [{ item: { id: variantId }, quantity: 1 }] });
const checkoutCount = async () => (await getDb()).checkoutSession.count({ where: { storeId: store.id } });

describe("capability negotiation", () => {
  test("nothing in common → capabilities_incompatible (HTTP 200), naming the capability; nothing created", async () => {
    const profile = declaring("agent-caps-none", ["com.example.loyalty"]);
    const before = await checkoutCount();
    const res = await post("/checkout-sessions", lines(), profile);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.ucp.status, "error");
    assert.equal(res.body.messages?.[0]?.code, "capabilities_incompatible");
    assert.match(res.body.messages?.[0]?.content ?? "", /dev\.ucp\.shopping\.checkout/);
    assert.equal(res.body.id, undefined);
    assert.equal(await checkoutCount(), before);
    const cart = await post("/carts", lines(), profile);
    assert.equal(cart.body.messages?.[0]?.code, "capabilities_incompatible");
  });

  test("checkout + order only: the checkout response lists checkout, not fulfillment/discount/buyer_consent", async () => {
    const profile = declaring("agent-caps-checkout", ["dev.ucp.shopping.checkout", "dev.ucp.shopping.order"]);
    const res = await post("/checkout-sessions", lines(), profile);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body.ucp.capabilities ?? {}), ["dev.ucp.shopping.checkout"]);
  });

  test("extensions follow their parents: without checkout, only cart's extensions are advertised", async () => {
    const profile = declaring("agent-caps-orphan", [
      "dev.ucp.shopping.cart",
      "dev.ucp.shopping.discount",
      "dev.ucp.shopping.fulfillment",
      "dev.ucp.shopping.buyer_consent",
    ]);
    const cart = await post("/carts", lines(), profile);
    assert.equal(cart.status, 201, cart.text);
    // discount extends cart or checkout: kept; fulfillment and buyer_consent extend checkout only: orphans
    assert.deepEqual(Object.keys(cart.body.ucp.capabilities ?? {}).sort(), [
      "dev.ucp.shopping.cart",
      "dev.ucp.shopping.discount",
    ]);
    // checkout is not declared: its extensions do not make it negotiable
    const checkout = await post("/checkout-sessions", lines(), profile);
    assert.equal(checkout.body.messages?.[0]?.code, "capabilities_incompatible");
  });

  test("a full shopping profile still sees every checkout capability", async () => {
    const res = await post("/checkout-sessions", lines(), profiles.url("ok"));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body.ucp.capabilities ?? {}).sort(), [
      "dev.ucp.shopping.buyer_consent",
      "dev.ucp.shopping.checkout",
      "dev.ucp.shopping.discount",
      "dev.ucp.shopping.fulfillment",
    ]);
  });

  test("on MCP: capabilities_incompatible is a tool result, not a JSON-RPC error", async () => {
    const profile = declaring("agent-caps-mcp", ["com.example.loyalty"]);
    const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
    try {
      const result = await client.callTool({
        name: "create_checkout",
        arguments: {
          meta: { "ucp-agent": { profile }, "idempotency-key": randomUUID() },
          checkout: lines(),
        },
      });
      const body = result.structuredContent as Body;
      assert.equal(body.ucp.status, "error", JSON.stringify(result));
      assert.equal(body.messages?.[0]?.code, "capabilities_incompatible");
    } finally {
      await client.close();
    }
  });
});
