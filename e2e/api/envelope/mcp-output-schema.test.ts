import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { AGENT_PROFILE } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { connectMcpClient } from "../../helpers/mcp-client";
import { linkAgent } from "../../helpers/oauth";
import { newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { servePlatformProfile } from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS } from "../checkout/helpers";

// Every tool advertises an outputSchema, and the stock SDK Client validates each result's structuredContent
// against it (Client.callTool throws on a mismatch, or on a result without structuredContent). Each kind of
// tool is called here: catalog, locations, cart, checkout (a card purchase through complete_checkout), order,
// order events, webhook deliveries and the buyer-account tools, plus business outcomes that come back as the UCP
// error envelope (ucp.status "error"), which the schema admits beside the resource.

let store: Store;
let key: string;
let variantId: string;
let productId: string;
let locationId: string;
let cimd: CimdServer;
let signer: PlatformSigner;
let profileUrl = "";
let closeProfile: () => void;

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(cimd.url("/hooks"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  store = await seedStore();
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  const product = await seedProduct(store, {
    title: "Trail Boots",
    variants: [{ priceMinor: 8900, inventory: 20 }],
  });
  productId = product.id;
  variantId = product.variants[0]!.id;
  locationId = newId("location");
  await (
    await getDb()
  ).location.create({
    data: {
      id: locationId,
      storeId: store.id,
      name: "Flagship",
      address: { street_address: "1 Main St", address_locality: "Denver", address_country: "US" },
      latitudeE6: 39_752_900,
      longitudeE6: -104_999_900,
      services: ["pickup"],
      openingHours: [{ day: 1, open: "09:00", close: "18:00" }],
    },
  });
  key = (await seedPlatformKey(["orders:read", "purchase:complete"])).key;
});
after(async () => {
  closeProfile();
  await cimd.close();
  await closeTestDatabase();
});

const meta = (profile: string, mutates = false) => ({
  "ucp-agent": { profile },
  ...(mutates ? { "idempotency-key": randomUUID() } : {}),
});

type Structured = Record<string, unknown> & { ucp?: { status?: string }; messages?: { code?: string }[] };

// The SDK's own validator (the one Client.callTool uses), compiled here too so each call is also checked in the
// open, and a body that does not match fails with the validator's message.
const validators = new Map<string, ReturnType<AjvJsonSchemaValidator["getValidator"]>>();
const sdkAjv = new AjvJsonSchemaValidator();

/** tools/list: every tool has an outputSchema (which makes the SDK client validate its results). */
const listWithSchemas = async (client: Client, expected: string[]) => {
  const { tools } = await client.listTools();
  for (const tool of tools) {
    assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an outputSchema`);
    validators.set(tool.name, sdkAjv.getValidator(tool.outputSchema as Record<string, unknown>));
  }
  for (const name of expected)
    assert.ok(
      tools.some((t) => t.name === name),
      name,
    );
  return tools;
};

/** One validated call: the SDK has already checked structuredContent against the outputSchema. */
const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<Structured> => {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name}: ${JSON.stringify(result)}`);
  assert.ok(result.structuredContent, `${name} returns structuredContent when it has an outputSchema`);
  const checked = validators.get(name)!(result.structuredContent);
  assert.ok(checked.valid, `${name}: ${checked.errorMessage}`);
  return result.structuredContent as Structured;
};

const businessError = (body: Structured, code: string) => {
  assert.equal(body.ucp?.status, "error", JSON.stringify(body));
  assert.equal(body.messages?.[0]?.code, code, JSON.stringify(body));
};

test("global MCP: catalog tools validate against their outputSchema", async () => {
  const client = await connectMcpClient("/mcp");
  try {
    await listWithSchemas(client, [
      "search_catalog",
      "lookup_catalog",
      "get_product",
      "list_catalog_changes",
    ]);
    const search = await call(client, "search_catalog", {
      meta: meta(AGENT_PROFILE),
      catalog: { query: "boots" },
    });
    assert.ok(Array.isArray(search.products) && search.products.length > 0, JSON.stringify(search));
    await call(client, "lookup_catalog", { meta: meta(AGENT_PROFILE), catalog: { ids: [variantId] } });
    await call(client, "get_product", { meta: meta(AGENT_PROFILE), catalog: { id: productId } });
    const changes = await call(client, "list_catalog_changes", {
      meta: meta(AGENT_PROFILE),
      // (now: the feed began at this database's migration, which may be moments old)
      catalog: { since: new Date().toISOString(), pagination: { limit: 5 } },
    });
    assert.ok(Array.isArray(changes.changes), JSON.stringify(changes));
    // an unknown id is a business outcome: the error envelope, validated by the same schema
    businessError(
      await call(client, "get_product", { meta: meta(AGENT_PROFILE), catalog: { id: "prod_missing" } }),
      "not_found",
    );
  } finally {
    await client.close();
  }
});

test("store MCP: locations, cart, checkout, a card purchase, the order, events and deliveries validate", async () => {
  const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
  try {
    const tools = await listWithSchemas(client, ["complete_checkout", "get_order", "redeliver_webhook"]);
    assert.equal(tools.length, 22);
    const locations = await call(client, "search_locations", {
      meta: meta(AGENT_PROFILE),
      catalog: { query: "flagship" },
    });
    assert.equal((locations.locations as unknown[]).length, 1);
    await call(client, "lookup_locations", {
      meta: meta(AGENT_PROFILE),
      catalog: { ids: [locationId, "nope"] },
    });

    const cart = await call(client, "create_cart", {
      meta: meta(profileUrl, true),
      cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
    });
    const cartId = cart.id as string;
    await call(client, "get_cart", { meta: meta(profileUrl), id: cartId });
    await call(client, "update_cart", {
      meta: meta(profileUrl, true),
      id: cartId,
      cart: { line_items: [{ item: { id: variantId }, quantity: 2 }] },
    });
    await call(client, "cancel_cart", { meta: meta(profileUrl, true), id: cartId });
    businessError(await call(client, "get_cart", { meta: meta(profileUrl), id: cartId }), "not_found");

    const created = await call(client, "create_checkout", {
      meta: meta(profileUrl, true),
      checkout: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
    });
    const updated = await call(client, "update_checkout", {
      meta: meta(profileUrl, true),
      id: created.id,
      checkout: { buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" },
    });
    assert.equal(updated.status, "ready_for_complete", JSON.stringify(updated));
    const read = await call(client, "get_checkout", { meta: meta(profileUrl), id: created.id });

    // a completion refused before any money moves is a business outcome (the mandate is missing)
    const refused = await call(client, "complete_checkout", {
      meta: meta(profileUrl, true),
      id: created.id,
      checkout: { payment: { instruments: [{ handler_id: "svc.card", selected: true }] } },
    });
    businessError(refused, "mandate_required");

    const completed = await call(client, "complete_checkout", {
      meta: meta(profileUrl, true),
      id: created.id,
      checkout: await cardCompletionBody(read, store.slug, signer, "pm_card_visa"),
    });
    assert.equal(completed.status, "completed", JSON.stringify(completed));
    const orderId = (completed.order as { id: string }).id;

    const order = await call(client, "get_order", { meta: meta(profileUrl), id: orderId });
    assert.equal(order.id, orderId);
    const events = await call(client, "list_order_events", { meta: meta(profileUrl), events: {} });
    assert.ok((events.events as unknown[]).length > 0, JSON.stringify(events));
    await call(client, "list_webhook_deliveries", { meta: meta(profileUrl), deliveries: {} });
    businessError(
      await call(client, "redeliver_webhook", { meta: meta(profileUrl, true), id: "whd_missing" }),
      "not_found",
    );

    const other = await call(client, "create_checkout", {
      meta: meta(profileUrl, true),
      checkout: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
    });
    const canceled = await call(client, "cancel_checkout", { meta: meta(profileUrl, true), id: other.id });
    assert.equal(canceled.status, "canceled");
    businessError(
      await call(client, "update_checkout", {
        meta: meta(profileUrl, true),
        id: other.id,
        checkout: { notes: "too late" },
      }),
      "checkout_not_modifiable",
    );
  } finally {
    await client.close();
  }
});

test("account MCP: the buyer-account tools validate against their outputSchema", async () => {
  const redirectUri = cimd.url("/schema-agent/callback");
  const clientId = cimd.document("/schema-agent", {
    client_name: "Schema agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code"],
    token_endpoint_auth_method: "none",
  });
  const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete" });
  const client = await connectMcpClient("/account/mcp", {
    headers: { authorization: `Bearer ${linked.tokens.access_token}`, "request-id": "", "ucp-agent": "" },
  });
  try {
    await listWithSchemas(client, [
      "list_linked_agents",
      "list_my_orders",
      "get_my_order",
      "revoke_linked_agent",
    ]);
    const agents = await call(client, "list_linked_agents", {});
    assert.equal((agents.linked_agents as unknown[]).length, 1);
    const orders = await call(client, "list_my_orders", {});
    assert.deepEqual(orders.orders, []);
    businessError(await call(client, "get_my_order", { id: "ord_missing" }), "not_found");
    const revoked = await call(client, "revoke_linked_agent", { id: clientId });
    assert.equal((revoked.revoked as { client_id: string }).client_id, clientId);
  } finally {
    await client.close();
  }
});
