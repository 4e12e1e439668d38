// A shopping agent over MCP with the official SDK client and the agent kit: the same card purchase as
// examples/agent-rest through a store's MCP endpoint (`/s/<store>/mcp`) of a service running in test mode.
// Prints `order <id>` and exits 0 on success.
//
//   npx tsx examples/agent-mcp/main.ts [BASE_URL] [API_KEY]
//   (or BASE_URL, API_KEY, STORE, QUERY in the environment)

// first: on a Node too old for the service, a message naming the version needed and how to get it
import "../../scripts/check-node.mjs";

import { randomUUID } from "node:crypto";

import {
  cardCompletion,
  fetchSigningKeys,
  newIdempotencyKey,
  startAgentProfileServer,
  verifyWebhook,
  type Checkout,
} from "@agent-commerce/agent-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { findService, orExit } from "../shared/local-service";

const apiKey = process.argv[3] ?? process.env.API_KEY ?? "";
const store = process.env.STORE ?? "summit-trail-outfitters";
if (!apiKey) throw new Error("Pass the platform API key: API_KEY=acs_… or as the second argument");
const { baseUrl } = await orExit(findService(process.argv[2] ?? process.env.BASE_URL));

// #region readme-mcp
const agent = await startAgentProfileServer(); // profile with a fresh ES256 key and a webhook receiver
const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/s/${store}/mcp`), {
  requestInit: { headers: { "x-api-key": apiKey, "ucp-agent": `profile="${agent.profileUrl}"` } },
  // UCP wants a fresh Request-Id on every HTTP request (the handshake works without one)
  fetch: (url, init) => {
    const headers = new Headers(init?.headers);
    headers.set("request-id", randomUUID());
    return fetch(url, { ...init, headers });
  },
});
const mcp = new Client({ name: "example-agent", version: "1.0.0" });
await mcp.connect(transport);

/** A UCP tool call: meta names our profile; a state-changing call carries an Idempotency-Key. */
const tool = async <T>(name: string, args: object, mutates = true): Promise<T> => {
  const meta = {
    "ucp-agent": { profile: agent.profileUrl },
    ...(mutates && { "idempotency-key": newIdempotencyKey() }),
  };
  const result = await mcp.callTool({ name, arguments: { meta, ...args } });
  const body = result.structuredContent as T & { ucp?: { status?: string } };
  if (result.isError || body?.ucp?.status === "error") throw new Error(`${name}: ${JSON.stringify(result)}`);
  return body;
};

type Found = { products: { variants: { id: string; availability?: { available?: boolean } }[] }[] };
const { products } = await tool<Found>(
  "search_catalog",
  { catalog: { query: process.env.QUERY ?? "jacket" } },
  false,
);
const variant = products.flatMap((p) => p.variants).find((v) => v.availability?.available !== false);
if (!variant) throw new Error("nothing in stock matches the query");

const checkout = await tool<Checkout>("create_checkout", {
  checkout: {
    line_items: [{ item: { id: variant.id }, quantity: 1 }],
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
  },
});
const destination = {
  street_address: "1 Market St",
  address_locality: "Denver",
  postal_code: "80202",
  address_country: "US",
};
const shipTo = await tool<Checkout>("update_checkout", {
  id: checkout.id,
  checkout: { fulfillment: { methods: [{ type: "shipping", destinations: [destination] }] } },
});
const option = shipTo.fulfillment?.methods?.[0]?.groups?.[0]?.options?.[0];
const ready = await tool<Checkout>("update_checkout", {
  id: checkout.id,
  checkout: {
    fulfillment: { methods: [{ type: "shipping", groups: [{ selected_option_id: option?.id ?? null }] }] },
    payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
  },
});
if (ready.status !== "ready_for_complete") throw new Error(JSON.stringify(ready.messages));

const paid = await tool<Checkout>("complete_checkout", {
  id: ready.id,
  checkout: await cardCompletion(ready, store, { token: "pm_card_visa", mandateSigner: agent.key }),
});
if (paid.status !== "completed" || !paid.order) throw new Error(JSON.stringify(paid.messages));
const order = await tool<{ id: string }>("get_order", { id: paid.order.id }, false);
console.log(`order ${order.id} (checkout ${ready.id})`);
// #endregion readme-mcp

// the store posts order events to the profile's webhook URL (the receiver answers 200), signed with its keys
const webhook = await agent.waitForWebhook((w) => w.body.includes(order.id), 15_000);
const storeKeys = await fetchSigningKeys(`${baseUrl}/s/${store}/.well-known/ucp`);
const check = webhook && (await verifyWebhook(webhook, (kid) => storeKeys.find((k) => k.kid === kid)));
console.log(
  check?.ok
    ? `webhook received for ${order.id}, signed by the store`
    : `no verified webhook: ${check?.reason}`,
);
await mcp.close();
await agent.close();
