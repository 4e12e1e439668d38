import { AppError } from "@/lib/core/errors";

// UCP protocol version negotiation (CONTRACT.md §4, DECISIONS.md B1, docs/ucp-versions.md §1). We speak
// UCP_VERSION; an older version is served on a transport only once a whole purchase works and is tested at that
// version on that transport (the translations live in lib/ucp/versions).

export const UCP_VERSION = "2026-04-08";

export type Transport = "rest" | "mcp";

/**
 * Older versions served per transport (`supported_versions` lists those served on at least one; each leaf profile
 * lists the transports its version is served on). A version is listed for a transport only once a whole purchase
 * at it, its errors and refusals are tested on that transport (e2e/api/versions): both, on both, today.
 */
export const SERVED_OLDER_VERSIONS: Record<Transport, readonly string[]> = {
  rest: ["2026-01-11", "2026-01-23"],
  mcp: ["2026-01-11", "2026-01-23"],
};

const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The versions served on `transport`, ours first. */
export const servedVersions = (transport: Transport): string[] => [
  UCP_VERSION,
  ...SERVED_OLDER_VERSIONS[transport],
];

/**
 * Picks the version used to process a request from the platform's declared version (when it declares one).
 * Equal to ours or one served on `transport` → that version; anything else → `version_unsupported` (04-08
 * overview.md:1912-1913: the business's own version and `supported_versions` decide, whatever the platform's age).
 * @throws AppError version_unsupported, invalid_ucp_agent
 */
export const negotiateVersion = (
  platformVersion: string | undefined,
  transport: Transport = "rest",
): string => {
  if (platformVersion === undefined) return UCP_VERSION;
  if (!VERSION_PATTERN.test(platformVersion)) {
    throw new AppError(
      "invalid_ucp_agent",
      `UCP-Agent version "${platformVersion}" is not a YYYY-MM-DD date`,
    );
  }
  const served = servedVersions(transport);
  if (served.includes(platformVersion)) return platformVersion;
  throw new AppError(
    "version_unsupported",
    `UCP version ${platformVersion} is not supported; this service speaks ${served.join(", ")} over ${transport === "rest" ? "REST" : "MCP"}`,
    { details: { supported_versions: served } },
  );
};

/**
 * The older versions a business profile lists in `supported_versions`: those served on at least one transport;
 * each one's leaf profile lists only the transports it is served on (leafTransports).
 */
export const advertisedOlderVersions = (): string[] => [
  ...new Set([...SERVED_OLDER_VERSIONS.rest, ...SERVED_OLDER_VERSIONS.mcp]),
];

/** The transports `version` is served on. */
export const leafTransports = (version: string): Transport[] =>
  (["rest", "mcp"] as const).filter((t) => SERVED_OLDER_VERSIONS[t].includes(version));
