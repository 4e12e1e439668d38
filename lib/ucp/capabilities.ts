import { UCP_VERSION } from "./version";

// Capability and service names of UCP 2026-04-08 (CONTRACT.md §3) with their spec and schema URLs.
// `dev.ucp.*` names must point at ucp.dev (namespace authority rule).

const SPEC_BASE = `https://ucp.dev/${UCP_VERSION}/specification`;
const SCHEMA_BASE = `https://ucp.dev/${UCP_VERSION}/schemas`;

export const SHOPPING_SERVICE = "dev.ucp.shopping";

export const SERVICE_SCHEMAS = {
  rest: `https://ucp.dev/${UCP_VERSION}/services/shopping/rest.openapi.json`,
  mcp: `https://ucp.dev/${UCP_VERSION}/services/shopping/mcp.openrpc.json`,
} as const;

export type CapabilityName =
  | "dev.ucp.shopping.catalog.search"
  | "dev.ucp.shopping.catalog.lookup"
  | "dev.ucp.shopping.cart"
  | "dev.ucp.shopping.checkout"
  | "dev.ucp.shopping.order"
  | "dev.ucp.shopping.fulfillment"
  | "dev.ucp.shopping.discount"
  | "dev.ucp.shopping.buyer_consent"
  | "dev.ucp.shopping.ap2_mandate"
  | "dev.ucp.common.identity_linking";

type CapabilityInfo = { spec: string; schema: string; extends?: CapabilityName | CapabilityName[] };

export const CAPABILITIES: Record<CapabilityName, CapabilityInfo> = {
  "dev.ucp.shopping.catalog.search": {
    spec: `${SPEC_BASE}/catalog/search`,
    schema: `${SCHEMA_BASE}/shopping/catalog_search.json`,
  },
  "dev.ucp.shopping.catalog.lookup": {
    spec: `${SPEC_BASE}/catalog/lookup`,
    schema: `${SCHEMA_BASE}/shopping/catalog_lookup.json`,
  },
  "dev.ucp.shopping.cart": { spec: `${SPEC_BASE}/cart`, schema: `${SCHEMA_BASE}/shopping/cart.json` },
  "dev.ucp.shopping.checkout": {
    spec: `${SPEC_BASE}/checkout`,
    schema: `${SCHEMA_BASE}/shopping/checkout.json`,
  },
  "dev.ucp.shopping.order": { spec: `${SPEC_BASE}/order`, schema: `${SCHEMA_BASE}/shopping/order.json` },
  "dev.ucp.shopping.fulfillment": {
    spec: `${SPEC_BASE}/fulfillment`,
    schema: `${SCHEMA_BASE}/shopping/fulfillment.json`,
    extends: "dev.ucp.shopping.checkout",
  },
  "dev.ucp.shopping.discount": {
    spec: `${SPEC_BASE}/discount`,
    schema: `${SCHEMA_BASE}/shopping/discount.json`,
    extends: ["dev.ucp.shopping.checkout", "dev.ucp.shopping.cart"],
  },
  "dev.ucp.shopping.buyer_consent": {
    spec: `${SPEC_BASE}/buyer-consent`,
    schema: `${SCHEMA_BASE}/shopping/buyer_consent.json`,
    extends: "dev.ucp.shopping.checkout",
  },
  "dev.ucp.shopping.ap2_mandate": {
    spec: `${SPEC_BASE}/ap2-mandates`,
    schema: `${SCHEMA_BASE}/shopping/ap2_mandate.json`,
    extends: "dev.ucp.shopping.checkout",
  },
  "dev.ucp.common.identity_linking": {
    spec: `${SPEC_BASE}/identity-linking`,
    schema: `${SCHEMA_BASE}/common/identity_linking.json`,
  },
};

/** A profile capability entry: `{version, spec, schema, extends?, config?}`. */
export const capabilityEntry = (name: CapabilityName, config?: Record<string, unknown>) => {
  const info = CAPABILITIES[name];
  return {
    version: UCP_VERSION,
    spec: info.spec,
    schema: info.schema,
    ...(info.extends ? { extends: info.extends } : {}),
    ...(config ? { config } : {}),
  };
};

/** The capabilities block of a response envelope: only `version` per active capability (CONTRACT.md §2). */
export const responseCapabilities = (names: readonly CapabilityName[]) =>
  Object.fromEntries(names.map((n) => [n, [{ version: UCP_VERSION }]]));

const SERVICE_SPEC = `https://ucp.dev/${UCP_VERSION}/specification/overview`;

/** A `dev.ucp.shopping` service entry for one transport (profiles list one per transport, CONTRACT.md §3). */
export const shoppingService = (transport: keyof typeof SERVICE_SCHEMAS, endpoint?: string) => ({
  version: UCP_VERSION,
  spec: SERVICE_SPEC,
  transport,
  ...(endpoint ? { endpoint } : {}),
  schema: SERVICE_SCHEMAS[transport],
});

/** The services block of a business profile serving REST at `restEndpoint` and MCP at `<restEndpoint>/mcp`. */
export const shoppingServices = (restEndpoint: string) => ({
  [SHOPPING_SERVICE]: [shoppingService("rest", restEndpoint), shoppingService("mcp", `${restEndpoint}/mcp`)],
});
