import { capabilityEntry, SHOPPING_SERVICE, shoppingService, type CapabilityName } from "./capabilities";
import { UCP_VERSION } from "./version";

// A minimal, valid UCP platform (agent) profile. The service publishes one at /demo/agent/.well-known/ucp so
// that the README's curl examples have a profile URL to send in UCP-Agent; agent developers can copy its shape.

const EXAMPLE_CAPABILITIES: readonly CapabilityName[] = [
  "dev.ucp.shopping.catalog.lookup",
  "dev.ucp.shopping.catalog.search",
  "dev.ucp.shopping.cart",
  "dev.ucp.shopping.checkout",
  "dev.ucp.shopping.fulfillment",
  "dev.ucp.shopping.discount",
  "dev.ucp.shopping.buyer_consent",
];

export const buildExampleAgentProfile = (baseUrl: string, version = UCP_VERSION) => ({
  ucp: {
    version,
    services: { [SHOPPING_SERVICE]: [{ ...shoppingService("mcp"), version }] },
    // What a shopping agent declares to use the stores' catalog, carts, checkout (with its extensions) and
    // orders: businesses answer with the intersection (UCP overview.md), so a capability left out here is
    // left out of every response. Card completion also needs dev.ucp.shopping.ap2_mandate and signing_keys.
    capabilities: {
      ...Object.fromEntries(EXAMPLE_CAPABILITIES.map((name) => [name, [capabilityEntry(name)]])),
      "dev.ucp.shopping.order": [
        capabilityEntry("dev.ucp.shopping.order", { webhook_url: `${baseUrl}/demo/agent/webhooks/orders` }),
      ],
    },
    payment_handlers: {},
  },
  signing_keys: [],
});
