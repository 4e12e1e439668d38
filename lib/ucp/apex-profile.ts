import { capabilityEntry, shoppingServices, type CapabilityName } from "./capabilities";
import { UCP_VERSION } from "./version";

// The platform apex profile at /.well-known/ucp (DECISIONS.md B2): it advertises the global, cross-store catalog
// (REST at {base_url}, MCP at {base_url}/mcp). Stores are reached through each product's
// metadata.svc_seller.endpoint and their own profiles. The OAuth server joins with the Buyer identity issue (#6).

export const APEX_CAPABILITIES: readonly CapabilityName[] = [
  "dev.ucp.shopping.catalog.lookup",
  "dev.ucp.shopping.catalog.search",
];

export const buildApexProfile = (baseUrl: string) => ({
  ucp: {
    version: UCP_VERSION,
    services: shoppingServices(baseUrl),
    capabilities: Object.fromEntries(APEX_CAPABILITIES.map((name) => [name, [capabilityEntry(name)]])),
    payment_handlers: {},
  },
  signing_keys: [],
});
