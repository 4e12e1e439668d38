import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { McpError } from "@modelcontextprotocol/sdk/types.js";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import {
  seedDiscountCodes,
  seedPlatformKey,
  seedProduct,
  seedShippingRates,
  seedStore,
} from "../../factories";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  assertCheckoutSchema,
  assertTotalsInvariant,
  BUYER,
  errorPaths,
  SEED_ADDRESS,
  totalOf,
  type Checkout,
  type ErrorEnvelope,
} from "./helpers";

// Checkout sessions through the official MCP SDK client (Streamable HTTP) on the per-store MCP: the tools
// create_checkout, get_checkout, update_checkout and cancel_checkout with the `checkout` namespace and a
// top-level `id` (UCP MCP binding), the same preflight and status machine as REST, and the MCP error forms.

let store: Store;
let twoRails: Store;
let otherStore: Store;
let socks: { id: string };
let coin: { id: string };
let key: string;
let client: McpClient;
let otherStoreClient: McpClient;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ taxRateBps: 1000 });
  twoRails = await seedStore({ cryptoEnabled: true });
  otherStore = await seedStore();
  socks = (await seedProduct(store, { title: "Wool Socks", variants: [{ priceMinor: 1450, inventory: 50 }] }))
    .variants[0]!;
  coin = (await seedProduct(twoRails, { variants: [{ priceMinor: 2000 }] })).variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  await seedShippingRates(twoRails, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  await seedDiscountCodes(store, [{ code: "TENOFF", kind: "percentage", value: 1000, title: "10% off" }]);
  key = (await seedPlatformKey()).key;
  client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
  otherStoreClient = await connectMcpClient(`/s/${otherStore.slug}/mcp`, { headers: { "x-api-key": key } });
});
after(async () => {
  await client.close();
  await otherStoreClient.close();
  await closeTestDatabase();
});

/**
 * The JSON-RPC error of a rejected SDK call. Over Streamable HTTP a protocol error keeps its HTTP status (UCP
 * §9: status primary), so the SDK raises a StreamableHTTPError carrying the JSON-RPC body instead of McpError.
 */
const rpcError = (
  error: unknown,
): { code: number; message: string; data: { code: string; path?: string } } => {
  if (error instanceof McpError) return error as never;
  const message = error instanceof Error ? error.message : String(error);
  const json = message.slice(message.indexOf("{"));
  return (JSON.parse(json) as { error: never }).error;
};

const call = async <T = Checkout>(
  tool: string,
  args: Record<string, unknown>,
  { mutates = true, via = client }: { mutates?: boolean; via?: McpClient } = {},
) => {
  const result = await via.callTool({
    name: tool,
    arguments: { meta: toolMeta(mutates ? randomUUID() : undefined), ...args },
  });
  assert.ok(!result.isError, JSON.stringify(result));
  // UCP MCP binding: structuredContent is the body, and content[0] carries the same JSON as text
  const text = (result.content as { type: string; text: string }[])[0]?.text;
  assert.deepEqual(JSON.parse(text ?? "null"), result.structuredContent);
  return result.structuredContent as T;
};

describe("per-store MCP checkout tools (official SDK client)", () => {
  test("a payload field beside its namespace (payment, ap2, line_items next to checkout) is refused, naming where it belongs", async () => {
    const db = await getDb();
    const before = await db.checkoutSession.count({ where: { storeId: store.id } });
    const cases: [string, Record<string, unknown>, string][] = [
      [
        "create_checkout",
        { line_items: [{ item: { id: socks.id }, quantity: 1 }], checkout: {} },
        "line_items",
      ],
      [
        "complete_checkout",
        { id: "chk_x", checkout: {}, payment: { instruments: [] }, ap2: { checkout_mandate: "x..y" } },
        "payment",
      ],
    ];
    for (const [tool, args, field] of cases) {
      const error = await client
        .callTool({ name: tool, arguments: { meta: toolMeta(randomUUID()), ...args } })
        .then(
          () => assert.fail(`${tool} accepted a misplaced ${field}`),
          (thrown: unknown) => rpcError(thrown),
        );
      assert.equal(error.data.code, "invalid_request", tool);
      assert.equal(error.data.path, `$.${field}`, tool);
      assert.match(error.message, new RegExp(`${field} belongs inside checkout`), tool);
    }
    assert.equal(await db.checkoutSession.count({ where: { storeId: store.id } }), before, "nothing stored");
  });

  test("a product id given as a line item: item_unavailable that names the product's variant ids", async () => {
    const boots = await seedProduct(store, {
      title: "Camp Stove",
      variants: [
        { priceMinor: 4000, title: "Small" },
        { priceMinor: 5000, title: "Large" },
      ],
    });
    const answer = await call<ErrorEnvelope>("create_checkout", {
      checkout: { line_items: [{ item: { id: boots.id }, quantity: 1 }] },
    });
    const message = answer.messages[0];
    assert.equal(message?.code, "item_unavailable");
    for (const v of boots.variants)
      assert.ok(message?.content.includes(`${v.id} (${v.title})`), message?.content);
  });

  test("tools/list advertises the four checkout tools and get_order with namespace, id and annotations", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      "create_checkout",
      "get_checkout",
      "update_checkout",
      "cancel_checkout",
      "get_order",
    ]) {
      assert.ok(byName.has(name), name);
    }
    const props = (name: string) => Object.keys(byName.get(name)!.inputSchema.properties ?? {}).sort();
    assert.deepEqual(props("create_checkout"), ["checkout", "meta"]);
    assert.deepEqual(props("update_checkout"), ["checkout", "id", "meta"]);
    assert.deepEqual(props("get_checkout"), ["id", "meta"]);
    assert.deepEqual(props("cancel_checkout"), ["id", "meta"]);
    assert.equal(byName.get("cancel_checkout")?.annotations?.destructiveHint, true);
    assert.equal(byName.get("get_checkout")?.annotations?.readOnlyHint, true);
  });

  test("lifecycle: create (all blockers) → one update fixes them → get → cancel → refusals", async () => {
    const created = await call("create_checkout", {
      checkout: { line_items: [{ item: { id: socks.id }, quantity: 2 }], discounts: { codes: ["tenoff"] } },
    });
    assertCheckoutSchema(created);
    assert.equal(created.status, "incomplete");
    assert.deepEqual(errorPaths(created), [
      ["missing", "$.buyer.email"],
      ["missing", "$.buyer.first_name"],
      ["missing", "$.buyer.last_name"],
      ["missing", "$.fulfillment.methods[0].destinations"],
    ]);
    const updated = await call("update_checkout", {
      id: created.id,
      checkout: {
        buyer: { ...BUYER, phone_number: "+14155550123", consent: { marketing: false, analytics: true } },
        shipping_address: SEED_ADDRESS,
        shipping_method_id: "standard",
        notes: "ring twice",
      },
    });
    assertCheckoutSchema(updated);
    assert.equal(updated.status, "ready_for_complete", JSON.stringify(updated.messages));
    assert.deepEqual(updated.buyer?.consent, { marketing: false, analytics: true });
    // 2900 − 290 (10 %) + 500 shipping = 3110, tax 10 % = 311
    assert.deepEqual(
      updated.totals.map((t) => [t.type, t.amount]),
      [
        ["subtotal", 2900],
        ["discount", -290],
        ["fulfillment", 500],
        ["tax", 311],
        ["total", 3421],
      ],
    );
    assertTotalsInvariant(updated);
    const got = await call("get_checkout", { id: created.id }, { mutates: false });
    assert.deepEqual(got, updated);
    const canceled = await call("cancel_checkout", { id: created.id });
    assertCheckoutSchema(canceled);
    assert.equal(canceled.status, "canceled");
    for (const [tool, args] of [
      ["update_checkout", { id: created.id, checkout: { notes: "again" } }],
      ["cancel_checkout", { id: created.id }],
    ] as const) {
      const refused = await call<ErrorEnvelope>(tool, args);
      assertUcpSchema("shopping/types/error_response.json", refused);
      assert.equal(refused.messages[0]?.code, "checkout_not_modifiable", tool);
    }
  });

  test("cart_id through MCP: the cart's contents, and the same open checkout on a second create", async () => {
    const cart = await call<{ id: string }>("create_cart", {
      cart: { line_items: [{ item: { id: socks.id }, quantity: 5 }] },
    });
    // UCP cart.md's own example body: an empty line_items beside the cart_id
    const first = await call("create_checkout", { checkout: { cart_id: cart.id, line_items: [] } });
    assertCheckoutSchema(first);
    assert.equal(first.line_items[0]?.quantity, 5);
    assert.equal(totalOf(first, "subtotal"), 5 * 1450);
    const second = await call("create_checkout", { checkout: { cart_id: cart.id } });
    assert.equal(second.id, first.id);
  });

  test("a two-rail store is ready_for_complete without an instrument; the rail choice is an info message; a rail that cannot complete yet is refused when selected", async () => {
    const railsClient = await connectMcpClient(`/s/${twoRails.slug}/mcp`, { headers: { "x-api-key": key } });
    try {
      const created = await call(
        "create_checkout",
        {
          checkout: {
            line_items: [{ item: { id: coin.id }, quantity: 1 }],
            buyer: BUYER,
            shipping_address: SEED_ADDRESS,
            shipping_method_id: "standard",
          },
        },
        { via: railsClient },
      );
      // UCP: everything needed is there, so ready_for_complete; complete carries the rail choice (seed §4)
      assert.deepEqual(errorPaths(created), []);
      assert.equal(created.status, "ready_for_complete");
      assert.deepEqual(
        created.messages
          .filter((m: { type: string }) => m.type === "info")
          .map((m: { code?: string; path?: string }) => [m.code, m.path]),
        [["payment_selection_required", "$.payment.instruments"]],
      );
      const picked = await call(
        "update_checkout",
        {
          id: created.id,
          checkout: { payment: { instruments: [{ handler_id: "svc.card", selected: true }] } },
        },
        { via: railsClient },
      );
      assert.equal(picked.status, "ready_for_complete");
      // svc.crypto is listed but cannot complete a checkout yet: refused when selected, selection unchanged
      const notYet = await railsClient.callTool({
        name: "update_checkout",
        arguments: {
          meta: toolMeta(randomUUID()),
          id: created.id,
          checkout: { payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] } },
        },
      });
      const body = notYet.structuredContent as ErrorEnvelope;
      assert.deepEqual(
        body.messages.map((m) => [m.code, m.path]),
        [["rail_not_available", "$.payment.instruments[0].handler_id"]],
        JSON.stringify(notYet),
      );
      const again = await call("get_checkout", { id: created.id }, { mutates: false, via: railsClient });
      assert.deepEqual(again.payment?.instruments, picked.payment?.instruments);
    } finally {
      await railsClient.close();
    }
  });

  test("bad input is a JSON-RPC error with the code and path; nothing is stored", async () => {
    const db = await getDb();
    const before = await db.checkoutSession.count({ where: { storeId: store.id } });
    await assert.rejects(
      client.callTool({
        name: "create_checkout",
        arguments: {
          meta: toolMeta(randomUUID()),
          checkout: { line_items: [{ item: { id: socks.id }, quantity: 0 }] },
        },
      }),
      (error: unknown) => {
        const rpc = rpcError(error);
        assert.equal(rpc.code, -32602);
        assert.equal(rpc.data.code, "invalid_request");
        assert.equal(rpc.data.path, "$.line_items[0].quantity");
        return true;
      },
    );
    await assert.rejects(
      client.callTool({
        name: "update_checkout",
        arguments: { meta: toolMeta(), id: "chk_x", checkout: { notes: "n" } },
      }),
      (error: unknown) =>
        /Tool update_checkout requires meta\[idempotency-key\]/.test(rpcError(error).message),
    );
    assert.equal(await db.checkoutSession.count({ where: { storeId: store.id } }), before);
  });

  test("idempotency over MCP: the same key replays; another body with it → -32000 idempotency_key_reused", async () => {
    const created = await call("create_checkout", {
      checkout: { line_items: [{ item: { id: socks.id }, quantity: 1 }] },
    });
    const meta = toolMeta(randomUUID());
    const first = await client.callTool({
      name: "update_checkout",
      arguments: { meta, id: created.id, checkout: { notes: "a" } },
    });
    const replay = await client.callTool({
      name: "update_checkout",
      arguments: { meta, id: created.id, checkout: { notes: "a" } },
    });
    assert.deepEqual(replay.structuredContent, first.structuredContent);
    await assert.rejects(
      client.callTool({
        name: "update_checkout",
        arguments: { meta, id: created.id, checkout: { notes: "b" } },
      }),
      (error: unknown) => {
        const rpc = rpcError(error);
        assert.deepEqual([rpc.code, rpc.data.code], [-32000, "idempotency_key_reused"]);
        return true;
      },
    );
  });

  test("isolation: the id on another store's MCP is not_found", async () => {
    const created = await call("create_checkout", {
      checkout: { line_items: [{ item: { id: socks.id }, quantity: 1 }] },
    });
    const elsewhere = await call<ErrorEnvelope>(
      "get_checkout",
      { id: created.id },
      { mutates: false, via: otherStoreClient },
    );
    assert.equal(elsewhere.messages[0]?.code, "not_found");
    const cancelElsewhere = await call<ErrorEnvelope>(
      "cancel_checkout",
      { id: created.id },
      { via: otherStoreClient },
    );
    assert.equal(cancelElsewhere.messages[0]?.code, "not_found");
    assert.equal((await call("get_checkout", { id: created.id }, { mutates: false })).status, "incomplete");
  });
});
