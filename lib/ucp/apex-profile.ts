import { capabilityEntry, shoppingServices, type CapabilityName } from "./capabilities";
import { UCP_VERSION } from "./version";

// The platform apex profile at /.well-known/ucp (DECISIONS.md B2): it advertises the global, cross-store catalog
// (REST at {base_url}, MCP at {base_url}/mcp). Stores are reached through each product's
// metadata.svc_seller.endpoint and their own profiles. Identity linking names the OAuth server: its
// metadata lives at {base_url}/.well-known/oauth-authorization-server (RFC 8414 on the business origin).

export const APEX_CAPABILITIES: readonly CapabilityName[] = [
  "dev.ucp.shopping.catalog.lookup",
  "dev.ucp.shopping.catalog.search",
];

/**
 * `config.scopes` of identity linking: scope tokens must match `{capability}:{name}` (CONTRACT.md §18.1 #20), so
 * the seed's `purchase:complete` is listed under the well-known checkout scope, which our AS accepts as its alias.
 */
export const IDENTITY_LINKING_CONFIG = {
  scopes: {
    "dev.ucp.shopping.checkout:manage": {
      description: {
        plain:
          "Complete purchases for the buyer (granted as purchase:complete). Not a spending authorization: the buyer sets spend caps separately.",
      },
    },
  },
};

/** `rateLimits`: the quotas every caller meets, published as our extension (docs/decisions.md "Rate limits"). */
export const buildApexProfile = (baseUrl: string, rateLimits: Record<string, unknown>) => ({
  ucp: {
    version: UCP_VERSION,
    services: shoppingServices(baseUrl),
    capabilities: {
      ...Object.fromEntries(APEX_CAPABILITIES.map((name) => [name, [capabilityEntry(name)]])),
      "dev.ucp.common.identity_linking": [
        capabilityEntry("dev.ucp.common.identity_linking", IDENTITY_LINKING_CONFIG),
      ],
    },
    payment_handlers: {},
  },
  signing_keys: [],
  svc_rate_limits: rateLimits,
});
