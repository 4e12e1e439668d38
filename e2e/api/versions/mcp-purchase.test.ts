import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { mandateTerms, signCheckoutMandate } from "@agent-commerce/agent-kit/mandate";
import type { JWK } from "jose";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import {
  seedDiscountCodes,
  seedPlatformKey,
  seedProduct,
  seedShippingRates,
  seedStore,
} from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, envelopeHeaders, mcpCall, readJson } from "../../helpers/app-client";
import { assertOlderRequest, CARD_0111, wholeUpdate } from "../../helpers/older-requests";
import { assertUcpSchema, type SchemaVersion } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A whole card purchase over MCP at each older version, every tool result's structuredContent checked against
// that version's official schemas: 2026-01-23's form (meta + `checkout`), and 2026-01-11's as its doc writes it
// (`params._meta.ucp.profile`, the payload flat beside the id, `idempotency_key`). Plus the errors and refusals.

type Json = Record<string, unknown>;
type Version = "2026-01-11" | "2026-01-23";
type Rpc = { result?: { structuredContent: Json }; error?: { code: number; message: string; data: Json } };

const REFS = [
  "shopping/fulfillment.json#/$defs/checkout",
  "shopping/discount.json#/$defs/checkout",
  "shopping/buyer_consent.json#/$defs/checkout",
];
const AP2_REF: Record<Version, string> = {
  "2026-01-11": "shopping/ap2_mandate.json#/$defs/checkout_response_with_ap2",
  "2026-01-23": "shopping/ap2_mandate.json#/$defs/checkout",
};

const assertCheckout = (version: Version, body: unknown) => {
  for (const ref of REFS) assertUcpSchema(ref, body, version as SchemaVersion);
  assertUcpSchema(AP2_REF[version], body, version as SchemaVersion);
  assert.equal((body as { ucp: { version: string } }).ucp.version, version);
};

let store: Store;
let key: string;
let mug: { id: string };
let agentKey: { kid: string; privateJwk: JWK };
const servers = await profileServer();

before(async () => {
  await prepareTestDatabase();
  agentKey = servers.agentKey as never;
  store = await seedStore({ taxRateBps: 1000 });
  mug = (await seedProduct(store, { title: "Mug", variants: [{ priceMinor: 2000, inventory: 50 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  await seedDiscountCodes(store, [{ code: "SAVE10", kind: "percentage", value: 1000 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(closeTestDatabase);

const profileOf = (version: Version) => servers.url(`v${version}-signed`);

/** One tool call in the version's own form. */
const tool = async (version: Version, name: string, payload: Json, id?: string): Promise<Rpc> => {
  if (version === "2026-01-23") {
    const res = await mcpCall<Rpc>(
      `/s/${store.slug}/mcp`,
      name,
      { ...(id ? { id } : {}), ...(Object.keys(payload).length ? { checkout: payload } : {}) },
      {
        headers: { "x-api-key": key },
        meta: { "ucp-agent": { profile: profileOf(version) }, "idempotency-key": randomUUID() },
      },
    );
    return res.body;
  }
  // 2026-01-11 doc form: the profile in params._meta.ucp, the payload flat, the key as idempotency_key
  const res = await callApp("POST", `/s/${store.slug}/mcp`, {
    headers: {
      ...envelopeHeaders(),
      accept: "application/json, text/event-stream",
      "ucp-agent": `profile="${profileOf(version)}"`,
      "x-api-key": key,
    },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        _meta: { ucp: { profile: profileOf(version) } },
        arguments: { ...(id ? { id } : {}), ...payload, idempotency_key: randomUUID() },
      },
    },
  });
  return (await readJson<Rpc>(res)).body;
};

const ADDRESS = {
  street_address: "1 Market St",
  address_locality: "San Francisco",
  address_region: "CA",
  postal_code: "94105",
  address_country: "US",
};

for (const version of ["2026-01-11", "2026-01-23"] as const) {
  describe(`MCP purchase at ${version}`, () => {
    test("create → get → update → complete by card: every result is a valid checkout of that version", async () => {
      const create = {
        ...(version === "2026-01-11" ? { currency: "USD", payment: CARD_0111 } : {}),
        line_items: [{ item: { id: mug.id }, quantity: 2 }],
        buyer:
          version === "2026-01-11"
            ? { full_name: "Ada Lovelace", email: "ada@example.com" }
            : { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" },
        fulfillment: { methods: [{ type: "shipping", destinations: [{ id: "dest_1", ...ADDRESS }] }] },
        discounts: { codes: ["SAVE10"] },
      };
      assertOlderRequest(version, "create", create);
      const created = await tool(version, "create_checkout", create);
      assert.ok(created.result, JSON.stringify(created.error));
      assertCheckout(version, created.result.structuredContent);
      const id = created.result.structuredContent.id as string;

      const read = await tool(version, "get_checkout", {}, id);
      assert.ok(read.result, JSON.stringify(read.error));
      assertCheckout(version, read.result.structuredContent);

      // the older update is a whole checkout (PUT replaces): what was read, the shipping option chosen
      const update = wholeUpdate(version, read.result.structuredContent, "standard");
      assertOlderRequest(version, "update", update);
      const updated = await tool(version, "update_checkout", update, id);
      assert.ok(updated.result, JSON.stringify(updated.error));
      const ready = updated.result.structuredContent;
      assertCheckout(version, ready);
      assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready.messages));

      const mandate = await signCheckoutMandate(mandateTerms(ready as never, store.slug), {
        privateJwk: agentKey.privateJwk,
        kid: agentKey.kid,
        exp: Math.floor(Date.now() / 1000) + 600,
      });
      const instrument = {
        id: "card-1",
        handler_id: "svc.card",
        type: "card",
        credential: { type: "stripe_token", token: "pm_card_visa" },
      };
      const complete =
        version === "2026-01-11"
          ? {
              payment_data: { ...instrument, brand: "visa", last_digits: "4242" },
              ap2: { checkout_mandate: mandate },
            }
          : {
              payment: { instruments: [{ ...instrument, selected: true }] },
              ap2: { checkout_mandate: mandate },
            };
      assertOlderRequest(version, "complete", complete);
      const completed = await tool(version, "complete_checkout", complete, id);
      assert.ok(completed.result, JSON.stringify(completed.error));
      assertCheckout(version, completed.result.structuredContent);
      assert.equal(completed.result.structuredContent.status, "completed");
      assert.ok((completed.result.structuredContent.order as { id?: string }).id);
    });

    test("an unknown checkout → a JSON-RPC error carrying that version's error body", async () => {
      const res = await tool(version, "get_checkout", {}, "chk_missing");
      assert.equal(res.error?.data.code, "not_found", JSON.stringify(res));
      assert.equal(res.error?.data.status, "requires_escalation");
      assert.equal((res.error?.data.ucp as { version: string }).version, version);
    });

    test("cart tools → capabilities_incompatible (a result, in that version's shape); nothing stored", async () => {
      const db = await getDb();
      const carts = await db.cart.count({ where: { storeId: store.id } });
      const res = await tool(version, "create_cart", { line_items: [{ item: { id: mug.id }, quantity: 1 }] });
      assert.equal(res.result?.structuredContent.code, "capabilities_incompatible", JSON.stringify(res));
      assert.equal(await db.cart.count({ where: { storeId: store.id } }), carts);
    });
  });
}

test("the 2026-01-11 call forms are refused at 2026-04-08 (meta is where they go there)", async () => {
  const res = await callApp("POST", `/s/${store.slug}/mcp`, {
    headers: {
      ...envelopeHeaders(),
      accept: "application/json, text/event-stream",
      "ucp-agent": `profile="${servers.url("signed")}"`,
      "x-api-key": key,
    },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "get_checkout",
        _meta: { ucp: { profile: servers.url("signed") } },
        arguments: { id: "chk_x" },
      },
    },
  });
  const body = (await readJson<Rpc>(res)).body;
  assert.equal(body.error?.data.code, "missing_ucp_agent", JSON.stringify(body));
});
