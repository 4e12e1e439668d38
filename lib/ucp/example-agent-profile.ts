import { capabilityEntry, SHOPPING_SERVICE, shoppingService } from "./capabilities";
import { UCP_VERSION } from "./version";

// A minimal, valid UCP platform (agent) profile. The service publishes one at /demo/agent/.well-known/ucp so
// that the README's curl examples have a profile URL to send in UCP-Agent; agent developers can copy its shape.

export const buildExampleAgentProfile = (baseUrl: string, version = UCP_VERSION) => ({
  ucp: {
    version,
    services: { [SHOPPING_SERVICE]: [{ ...shoppingService("mcp"), version }] },
    capabilities: {
      "dev.ucp.shopping.catalog.lookup": [capabilityEntry("dev.ucp.shopping.catalog.lookup")],
      "dev.ucp.shopping.cart": [capabilityEntry("dev.ucp.shopping.cart")],
      "dev.ucp.shopping.order": [
        capabilityEntry("dev.ucp.shopping.order", { webhook_url: `${baseUrl}/demo/agent/webhooks/orders` }),
      ],
    },
    payment_handlers: {},
  },
  signing_keys: [],
});
