// A shopping agent over REST with the agent kit: a whole card purchase in one store of a service running in test
// mode (`npm start`): search → checkout → buyer and shipping → pay with the sandbox card and a signed AP2 mandate →
// read the order, then wait briefly for the order webhook. Prints `order <id>` and exits 0 on success.
//
//   npx tsx examples/agent-rest/main.ts [BASE_URL] [API_KEY]
//   (or BASE_URL, API_KEY, STORE, QUERY in the environment; the key is the one `npm start` printed, kept in
//   .data/demo-platform-key.json)

// first: on a Node too old for the service, a message naming the version needed and how to get it
import "../../scripts/check-node.mjs";

import {
  createShoppingClient,
  fetchSigningKeys,
  mandateTerms,
  signCheckoutMandate,
  startAgentProfileServer,
  verifyWebhook,
} from "@agent-commerce/agent-kit";

import { findService, orExit } from "../shared/local-service";

const apiKey = process.argv[3] ?? process.env.API_KEY ?? "";
const store = process.env.STORE ?? "summit-trail-outfitters";
if (!apiKey) throw new Error("Pass the platform API key: API_KEY=acs_… or as the second argument");
const { baseUrl } = await orExit(findService(process.argv[2] ?? process.env.BASE_URL));

// #region readme-rest
// Our agent's UCP profile: a fresh ES256 key in signing_keys, AP2 mandates declared, an order webhook receiver.
const agent = await startAgentProfileServer();
const shop = createShoppingClient({ baseUrl, store, apiKey, agentProfileUrl: agent.profileUrl });

const { products } = await shop.searchCatalog({ query: process.env.QUERY ?? "jacket" });
const variant = products.flatMap((p) => p.variants).find((v) => v.availability?.available !== false);
if (!variant) throw new Error("nothing in stock matches the query");

const checkout = await shop.createCheckout({
  line_items: [{ item: { id: variant.id }, quantity: 1 }],
  buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
});
const destination = {
  street_address: "1 Market St",
  address_locality: "San Francisco",
  address_region: "CA",
  postal_code: "94105",
  address_country: "US",
};
const shipTo = await shop.updateCheckout(checkout.id, {
  fulfillment: { methods: [{ type: "shipping", destinations: [destination] }] },
});
const option = shipTo.fulfillment?.methods?.[0]?.groups?.[0]?.options?.[0];
const ready = await shop.updateCheckout(checkout.id, {
  fulfillment: { methods: [{ type: "shipping", groups: [{ selected_option_id: option?.id ?? null }] }] },
  payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
});
if (ready.status !== "ready_for_complete") throw new Error(JSON.stringify(ready.messages));

// pay with the sandbox card and an AP2 mandate: the terms of exactly this checkout, signed with the profile's key
// #region readme-mandate
const terms = mandateTerms(ready, store); // lines, totals, currency, buyer email, shipment: what the store checks
const mandate = await signCheckoutMandate(terms, { ...agent.key, exp: Math.floor(Date.now() / 1000) + 300 });
const paid = await shop.completeCheckout(ready.id, {
  payment: {
    instruments: [
      { handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token: "pm_card_visa" } },
    ],
  },
  ap2: { checkout_mandate: mandate }, // "<header>..<signature>", detached ES256 JWS
});
// #endregion readme-mandate
if (paid.status !== "completed" || !paid.order) throw new Error(JSON.stringify(paid.messages));
const order = await shop.getOrder(paid.order.id);
const total = ready.totals.find((t) => t.type === "total")?.amount;
console.log(`order ${order.id} (checkout ${ready.id}, total ${total} minor units of ${ready.currency})`);
// #endregion readme-rest

// the store posts order events to the profile's webhook URL (the receiver answers 200), signed with its keys
const webhook = await agent.waitForWebhook((w) => w.body.includes(order.id), 15_000);
const storeKeys = await fetchSigningKeys(`${baseUrl}/s/${store}/.well-known/ucp`);
const check = webhook && (await verifyWebhook(webhook, (kid) => storeKeys.find((k) => k.kid === kid)));
console.log(
  check?.ok
    ? `webhook received for ${order.id}, signed by the store`
    : `no verified webhook: ${check?.reason}`,
);
await agent.close();
