import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";

import {
  seedDiscountCodes,
  seedPlatformKey,
  seedProduct,
  seedShippingRates,
  seedStore,
} from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { assertCheckoutSchema, BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// Parity: one table of checkout scenarios run through REST and through the official MCP SDK client; both
// surfaces must give the same status, totals, fulfillment, discounts and messages (ids aside), and the same
// error code and JSONPath for bad input. One core, two adapters (STYLE.md §5).

let store: Store;
let boots: { id: string };
let socks: { id: string };
let card: { id: string };
let key: string;
let client: McpClient;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ taxRateBps: 725, cryptoEnabled: true });
  boots = (await seedProduct(store, { variants: [{ priceMinor: 8999, inventory: 4, weightGrams: 2500 }] }))
    .variants[0]!;
  socks = (await seedProduct(store, { variants: [{ priceMinor: 1299, inventory: 2, weightGrams: 80 }] }))
    .variants[0]!;
  // tagged to ship free on the standard rate
  card = (await seedProduct(store, { tags: ["letterbox"], variants: [{ priceMinor: 450, inventory: 9 }] }))
    .variants[0]!;
  await seedShippingRates(store, [
    { code: "standard", title: "Standard", priceMinor: 499, freeOverMinor: 10000, freeForTag: "letterbox" },
    { code: "express", title: "Express", priceMinor: 1599, maxWeightGrams: 2000 },
    { code: "freight", title: "Freight", priceMinor: 2999, minWeightGrams: 2000 },
    { code: "world", title: "World", country: "*", priceMinor: 3499 },
  ]);
  await seedDiscountCodes(store, [
    { code: "TEN", kind: "percentage", value: 1000 },
    { code: "OLD", kind: "fixed_amount", value: 100, expiresAt: new Date("2021-01-01T00:00:00Z") },
  ]);
  key = (await seedPlatformKey()).key;
  client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
});
after(async () => {
  await client.close();
  await closeTestDatabase();
});

type Outcome = { kind: "body"; body: Checkout } | { kind: "error"; code: string; path?: string };

const viaRest = async (create: unknown, update?: unknown): Promise<Outcome> => {
  const h = () => ({ "x-api-key": key, "idempotency-key": randomUUID() });
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: h(),
    body: create,
  });
  const res = update
    ? await rest<Checkout>("PUT", `/s/${store.slug}/checkout-sessions/${created.body.id}`, {
        headers: h(),
        body: update,
      })
    : created;
  const err = (
    res.body as unknown as { ucp: { status: string }; messages: { code: string; path?: string }[] }
  ).messages?.[0];
  if (res.status >= 400 || res.body.ucp.status === "error")
    return { kind: "error", code: err!.code, path: err!.path };
  return { kind: "body", body: res.body };
};

const rpcError = (error: unknown): { code: string; path?: string } => {
  const message = error instanceof Error ? error.message : String(error);
  const parsed = JSON.parse(message.slice(message.indexOf("{"))) as {
    error: { data: { code: string; path?: string } };
  };
  return parsed.error.data;
};

const viaMcp = async (create: unknown, update?: unknown): Promise<Outcome> => {
  try {
    const created = await client.callTool({
      name: "create_checkout",
      arguments: { meta: toolMeta(randomUUID()), checkout: create },
    });
    let body = created.structuredContent as Checkout;
    if (update && body.ucp.status !== "error") {
      const updated = await client.callTool({
        name: "update_checkout",
        arguments: { meta: toolMeta(randomUUID()), id: body.id, checkout: update },
      });
      body = updated.structuredContent as Checkout;
    }
    if (body.ucp.status === "error") {
      const m = (body as unknown as { messages: { code: string; path?: string }[] }).messages[0]!;
      return { kind: "error", code: m.code, path: m.path };
    }
    return { kind: "body", body };
  } catch (error) {
    const data = rpcError(error);
    return { kind: "error", code: data.code, path: data.path };
  }
};

/** The comparable part of an outcome: everything but generated ids and timestamps. */
const comparable = (o: Outcome) => {
  if (o.kind === "error") return o;
  const { status, totals, messages, discounts, fulfillment, line_items, buyer, payment } = o.body;
  return {
    status,
    totals,
    messages,
    discounts,
    buyer,
    payment,
    lines: line_items.map((l) => [l.item.id, l.item.price, l.quantity, l.totals]),
    methods: fulfillment.methods.map((m) => ({
      ...m,
      line_item_ids: m.line_item_ids.length,
      groups: m.groups.map((g) => ({ ...g, line_item_ids: g.line_item_ids.length })),
    })),
  };
};

const LINES = () => [
  { item: { id: boots.id }, quantity: 1 },
  { item: { id: socks.id }, quantity: 1 },
];
const SCENARIOS: [string, () => unknown, (() => unknown)?][] = [
  ["bare create: every blocker", () => ({ line_items: LINES() })],
  [
    "full fix in one update",
    () => ({ line_items: LINES() }),
    () => ({
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "freight",
      payment: { instruments: [{ handler_id: "svc.card" }] },
      discounts: { codes: ["ten", "OLD", "nope"] },
    }),
  ],
  [
    "UCP fulfillment form abroad",
    () => ({
      line_items: [{ item: { id: socks.id }, quantity: 2 }],
      fulfillment: {
        methods: [
          {
            type: "shipping",
            destinations: [
              {
                street_address: "1 Rue",
                address_locality: "Paris",
                postal_code: "75001",
                address_country: "FR",
              },
            ],
            groups: [{ selected_option_id: "world" }],
          },
        ],
      },
    }),
  ],
  [
    "free-shipping tag: every item tagged, standard free",
    () => ({ line_items: [{ item: { id: card.id }, quantity: 2 }] }),
    () => ({ buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" }),
  ],
  [
    "free-shipping tag: one item untagged, standard priced",
    () => ({ line_items: [...LINES().slice(1), { item: { id: card.id }, quantity: 1 }] }),
    () => ({ buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" }),
  ],
  ["out of stock", () => ({ line_items: [{ item: { id: socks.id }, quantity: 3 }] })],
  ["nothing sellable", () => ({ line_items: [{ item: { id: "var_nope" }, quantity: 1 }] })],
  ["fractional quantity", () => ({ line_items: [{ item: { id: socks.id }, quantity: 0.5 }] })],
  ["duplicate lines", () => ({ line_items: [...LINES(), { item: { id: boots.id }, quantity: 2 }] })],
  ["bad email on update", () => ({ line_items: LINES() }), () => ({ buyer: { email: "x@" } })],
  [
    "unknown country on update",
    () => ({ line_items: LINES() }),
    () => ({ shipping_address: { ...SEED_ADDRESS, country: "QQ" } }),
  ],
  [
    "unknown handler on update",
    () => ({ line_items: LINES() }),
    () => ({ payment: { instruments: [{ handler_id: "svc.cash" }] } }),
  ],
  ["unknown cart", () => ({ cart_id: "cart_nope" })],
];

describe("checkout parity: REST and MCP (official SDK client) answer alike", () => {
  for (const [name, create, update] of SCENARIOS) {
    test(name, async () => {
      const r = await viaRest(create(), update?.());
      const m = await viaMcp(create(), update?.());
      if (r.kind === "body") assertCheckoutSchema(r.body);
      if (m.kind === "body") assertCheckoutSchema(m.body);
      assert.deepEqual(comparable(m), comparable(r));
    });
  }

  test("the full-fix scenario really is ready, with the freight price, a 10 % discount and 7.25 % tax", async () => {
    const r = await viaRest(SCENARIOS[1]![1](), SCENARIOS[1]![2]!());
    assert.equal(r.kind, "body");
    const body = (r as { body: Checkout }).body;
    assert.equal(body.status, "ready_for_complete", JSON.stringify(body.messages));
    // goods 10298, discount 1029 (floor 1029.8), freight 2999 (3 kg > 2 kg), tax 7.25 % of 12268 = 889.43 → 889
    assert.deepEqual(
      body.totals.map((t) => [t.type, t.amount]),
      [
        ["subtotal", 10298],
        ["discount", -1029],
        ["fulfillment", 2999],
        ["tax", 889],
        ["total", 13157],
      ],
    );
    assertUcpSchema("shopping/checkout.json", body);
  });

  test("the free-shipping tag frees the standard option only when every item carries it", async () => {
    const standard = async (scenario: string) => {
      const [, create, update] = SCENARIOS.find(([name]) => name === scenario)!;
      const r = await viaRest(create(), update!());
      assert.equal(r.kind, "body");
      const body = (r as { body: Checkout }).body;
      assert.equal(body.status, "ready_for_complete", JSON.stringify(body.messages));
      const option = body.fulfillment.methods[0]!.groups[0]!.options.find((o) => o.id === "standard")!;
      return [
        option.title,
        option.totals.find((t) => t.type === "total")?.amount,
        body.totals.at(-1)?.amount,
      ];
    };
    // 2 × 4.50 = 9.00 + 7.25 % tax (0.65); socks 12.99 + a card 4.50 = 17.49, + 4.99 + 7.25 % of 22.48 (1.63)
    assert.deepEqual(await standard("free-shipping tag: every item tagged, standard free"), [
      "Free Standard",
      0,
      965,
    ]);
    assert.deepEqual(await standard("free-shipping tag: one item untagged, standard priced"), [
      "Standard",
      499,
      2411,
    ]);
  });
});
