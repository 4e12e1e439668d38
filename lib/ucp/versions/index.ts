import type { CapabilityName } from "@/lib/ucp/capabilities";
import type { UCP_VERSION } from "@/lib/ucp/version";

// The older UCP versions (docs/ucp-versions.md). Every operation is implemented once, at UCP_VERSION; an older
// version differs only at the edge, as pure translations of the wire shapes: `up` (an older request → our input)
// and `down` (our answer → the older shape). This module imports nothing from the surfaces or the domains.

export type OlderVersion = "2026-01-11" | "2026-01-23";
export type UcpVersion = OlderVersion | typeof UCP_VERSION;

export const OLDER_VERSIONS: readonly OlderVersion[] = ["2026-01-11", "2026-01-23"];

export const isOlderVersion = (version: string): version is OlderVersion =>
  (OLDER_VERSIONS as readonly string[]).includes(version);

/**
 * What each older version defines (docs/ucp-versions.md §2): checkout with its extensions, the order webhook and
 * identity linking. No cart, no catalog, no order read: those tags' OpenAPI and OpenRPC have none.
 */
export const CAPABILITIES_AT: Record<OlderVersion, readonly CapabilityName[]> = {
  "2026-01-11": [
    "dev.ucp.shopping.checkout",
    "dev.ucp.shopping.fulfillment",
    "dev.ucp.shopping.discount",
    "dev.ucp.shopping.buyer_consent",
    "dev.ucp.shopping.ap2_mandate",
    "dev.ucp.shopping.order",
    "dev.ucp.common.identity_linking",
  ],
  "2026-01-23": [
    "dev.ucp.shopping.checkout",
    "dev.ucp.shopping.fulfillment",
    "dev.ucp.shopping.discount",
    "dev.ucp.shopping.buyer_consent",
    "dev.ucp.shopping.ap2_mandate",
    "dev.ucp.shopping.order",
    "dev.ucp.common.identity_linking",
  ],
};

/**
 * The operations an older version has: the five checkout operations of its OpenAPI/OpenRPC, plus our crypto
 * `prepare_checkout_payment`, a step of completing a checkout, which exists then (docs/ucp-versions.md §2).
 */
export const OPERATIONS_AT: Record<OlderVersion, ReadonlySet<string>> = {
  "2026-01-11": new Set([
    "create_checkout",
    "get_checkout",
    "update_checkout",
    "complete_checkout",
    "cancel_checkout",
    "prepare_checkout_payment",
  ]),
  "2026-01-23": new Set([
    "create_checkout",
    "get_checkout",
    "update_checkout",
    "complete_checkout",
    "cancel_checkout",
    "prepare_checkout_payment",
  ]),
};

/** The published documents of one payment handler, required on a 2026-01-11 handler entry (§3.2, §3.12). */
export type HandlerDocs = { spec: string; config_schema: string; instrument_schemas: string[] };

/**
 * Where a handler's documents are published (product call, docs/ucp-versions.md §3.2): 2026-01-11 requires
 * `spec`, `config_schema` and `instrument_schemas` URIs on every handler entry.
 */
export const handlerDocsAt =
  (baseUrl: string) =>
  (registryKey: string): HandlerDocs => ({
    spec: `${baseUrl}/ucp/handlers/${registryKey}`,
    config_schema: `${baseUrl}/ucp/handlers/${registryKey}/config.json`,
    instrument_schemas: [`${baseUrl}/ucp/handlers/${registryKey}/instrument.json`],
  });
