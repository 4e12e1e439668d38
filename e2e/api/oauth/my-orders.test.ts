import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { listBuyerOrders } from "@/lib/orders/list-buyer-orders";
import { placeOrder } from "@/lib/orders/place-order";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { connectMcpClient } from "../../helpers/mcp-client";
import { linkAgent } from "../../helpers/oauth";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS } from "../checkout/helpers";

// The buyer's orders on /account/mcp: an agent acting with the buyer's bearer checks out in two stores and lists
// and reads those orders — and no one else's, not even another agent's of the same buyer (the principal is the
// pair buyer + agent); the buyer's own page sees every agent's.

type Order = { id: string; checkout_id: string; store: { slug: string }; totals: { type: string }[] };

let cimd: CimdServer;
let stores: Store[];
let variants: string[];

const registerAgent = (path: string) => {
  const redirectUri = cimd.url(`${path}/callback`);
  const clientId = cimd.document(path, {
    client_name: "Orders agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: "none",
  });
  return { clientId, redirectUri };
};

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  stores = [await seedStore(), await seedStore()];
  variants = [];
  for (const store of stores) {
    await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
    variants.push(
      (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 10 }] })).variants[0]!.id,
    );
  }
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

/** A checkout in `store` created with `credential` headers, then placed as completion would. */
const orderIn = async (i: number, credential: Record<string, string>) => {
  const store = stores[i]!;
  const created = await rest<{ id: string; status: string }>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { ...credential, "idempotency-key": randomUUID() },
    body: {
      line_items: [{ item: { id: variants[i] }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  const db = await getDb();
  return placeOrder(db, {
    checkoutId: created.body.id,
    storeId: store.id,
    handlerId: "svc.crypto",
    paymentRef: `0x${i}`,
    now: new Date(),
    // placed directly, as a payment the buyer approved: the allowance's gate (the finisher) is not the point here
    spendApproved: true,
  });
};

const toolJson = (result: unknown) =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

describe("get_my_order and list_my_orders on /account/mcp", () => {
  test("the buyer's orders across stores, newest first, paged; other buyers' and platforms' orders are invisible", async () => {
    const agent = registerAgent("/orders-agent");
    const linked = await linkAgent({ ...agent, scope: "purchase:complete" });
    const bearer = { authorization: `Bearer ${linked.tokens.access_token}` };
    const first = await orderIn(0, bearer);
    const second = await orderIn(1, bearer);
    const stranger = await linkAgent({ ...registerAgent("/stranger"), scope: "purchase:complete" });
    const theirs = await orderIn(0, { authorization: `Bearer ${stranger.tokens.access_token}` });
    const platformOrder = await orderIn(1, { "x-api-key": (await seedPlatformKey()).key });

    const mcp = await connectMcpClient("/account/mcp", {
      headers: { ...bearer, "request-id": "", "ucp-agent": "" },
    });
    const names = (await mcp.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("get_my_order") && names.includes("list_my_orders"));

    const page1 = toolJson(await mcp.callTool({ name: "list_my_orders", arguments: { limit: 1 } }));
    const orders1 = page1.orders as Order[];
    assert.deepEqual(
      orders1.map((o) => o.id),
      [second.id],
    );
    const pagination = page1.pagination as { has_next_page: boolean; cursor: string };
    assert.equal(pagination.has_next_page, true);
    const page2 = toolJson(
      await mcp.callTool({ name: "list_my_orders", arguments: { limit: 10, cursor: pagination.cursor } }),
    );
    assert.deepEqual(
      (page2.orders as Order[]).map((o) => [o.id, o.store.slug]),
      [[first.id, stores[0]!.slug]],
    );
    assert.deepEqual(page2.pagination, { has_next_page: false });

    const one = toolJson(await mcp.callTool({ name: "get_my_order", arguments: { id: first.id } }));
    const { store: _store, ...order } = one as Order & Record<string, unknown>;
    assertUcpSchema("shopping/order.json", order);
    assert.equal(one.checkout_id, first.checkoutId);

    for (const id of [theirs.id, platformOrder.id]) {
      const miss = toolJson(await mcp.callTool({ name: "get_my_order", arguments: { id } }));
      assert.equal((miss.messages as { code: string }[])[0]?.code, "not_found");
    }
    await assert.rejects(mcp.callTool({ name: "list_my_orders", arguments: { cursor: "forged" } }), /cursor/);
    await mcp.close();
  });

  test("two agents of one buyer: neither reads, changes, cancels, lists nor unlinks the other's; the buyer's page sees both", async () => {
    const agentA = registerAgent("/agent-a");
    const agentB = registerAgent("/agent-b");
    const a = await linkAgent({ ...agentA, scope: "purchase:complete" });
    const b = await linkAgent({ ...agentB, scope: "purchase:complete", buyerId: a.buyerId });
    const bearerA = { authorization: `Bearer ${a.tokens.access_token}` };
    const bearerB = { authorization: `Bearer ${b.tokens.access_token}` };
    const store = stores[0]!;

    // A's open checkout: B gets not_found on read, update and cancel, exactly as another platform would
    const created = await rest<{ id: string; status: string }>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: { ...bearerA, "idempotency-key": randomUUID() },
      body: {
        line_items: [{ item: { id: variants[0] }, quantity: 1 }],
        buyer: BUYER,
        shipping_address: SEED_ADDRESS,
        shipping_method_id: "standard",
      },
    });
    assert.equal(created.status, 201, created.text);
    const path = `/s/${store.slug}/checkout-sessions/${created.body.id}`;
    const read = await rest("GET", path, { headers: bearerB });
    assert.match(read.text, /"code":"not_found"/, read.text);
    assert.doesNotMatch(read.text, new RegExp(BUYER.email), "none of A's buyer details leak to B");
    const moved = await rest("PUT", path, {
      headers: { ...bearerB, "idempotency-key": randomUUID() },
      body: { shipping_address: { ...SEED_ADDRESS, line1: "1 Elsewhere Road" } },
    });
    assert.match(moved.text, /"code":"not_found"/, moved.text);
    const canceled = await rest("POST", `${path}/cancel`, {
      headers: { ...bearerB, "idempotency-key": randomUUID() },
    });
    assert.match(canceled.text, /"code":"not_found"/, canceled.text);
    const stillA = await rest<{ status: string; fulfillment: unknown }>("GET", path, { headers: bearerA });
    assert.equal(stillA.status, 200);
    assert.equal(stillA.body.status, "ready_for_complete", "B's calls changed nothing");
    assert.doesNotMatch(JSON.stringify(stillA.body.fulfillment), /Elsewhere/);
    // nor complete it: not_found before any payment is looked at
    const completedByB = await rest("POST", `${path}/complete`, {
      headers: { ...bearerB, "idempotency-key": randomUUID() },
      body: { payment: { instruments: [{ handler_id: "svc.card", selected: true }] } },
    });
    assert.match(completedByB.text, /"code":"not_found"/, completedByB.text);

    // A's cart (and its link) is A's alone too
    const cart = await rest<{ id: string }>("POST", `/s/${store.slug}/carts`, {
      headers: { ...bearerA, "idempotency-key": randomUUID() },
      body: { line_items: [{ item: { id: variants[0] }, quantity: 1 }] },
    });
    assert.equal(cart.status, 201, cart.text);
    const cartPath = `/s/${store.slug}/carts/${cart.body.id}`;
    assert.match((await rest("GET", cartPath, { headers: bearerB })).text, /"code":"not_found"/);
    const cartMoved = await rest("PUT", cartPath, {
      headers: { ...bearerB, "idempotency-key": randomUUID() },
      body: { line_items: [{ item: { id: variants[0] }, quantity: 5 }] },
    });
    assert.match(cartMoved.text, /"code":"not_found"/, cartMoved.text);
    const cartOfA = await rest<{ line_items: { quantity: number }[] }>("GET", cartPath, { headers: bearerA });
    assert.deepEqual(
      cartOfA.body.line_items.map((l) => l.quantity),
      [1],
      "B's update changed nothing",
    );

    // orders: each agent lists and reads only its own
    const orderA = await orderIn(0, bearerA);
    const orderB = await orderIn(1, bearerB);
    const mcpA = await connectMcpClient("/account/mcp", {
      headers: { ...bearerA, "request-id": "", "ucp-agent": "" },
    });
    const mcpB = await connectMcpClient("/account/mcp", {
      headers: { ...bearerB, "request-id": "", "ucp-agent": "" },
    });
    const listed = async (mcp: typeof mcpA) =>
      (toolJson(await mcp.callTool({ name: "list_my_orders", arguments: {} })).orders as Order[]).map(
        (o) => o.id,
      );
    assert.deepEqual(await listed(mcpA), [orderA.id]);
    assert.deepEqual(await listed(mcpB), [orderB.id]);
    const miss = toolJson(await mcpB.callTool({ name: "get_my_order", arguments: { id: orderA.id } }));
    assert.equal((miss.messages as { code: string }[])[0]?.code, "not_found");

    // the buyer's own page shows both agents' orders
    const page = await listBuyerOrders(a.buyerId, {});
    assert.deepEqual(page.map((o) => o.id).sort(), [orderA.id, orderB.id].sort());

    // B cannot unlink A: not_found, and A's token keeps working; B can unlink itself
    const cut = toolJson(
      await mcpB.callTool({ name: "revoke_linked_agent", arguments: { id: agentA.clientId } }),
    );
    assert.equal((cut.messages as { code: string }[])[0]?.code, "not_found");
    assert.deepEqual(await listed(mcpA), [orderA.id], "A is still linked");
    const self = toolJson(
      await mcpB.callTool({ name: "revoke_linked_agent", arguments: { id: agentB.clientId } }),
    );
    assert.equal((self.revoked as { client_id: string }).client_id, agentB.clientId);
    await mcpA.close();
    await mcpB.close();
  });
});
