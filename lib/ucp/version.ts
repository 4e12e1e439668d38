import { AppError } from "@/lib/core/errors";

// UCP protocol version negotiation (CONTRACT.md §4, DECISIONS.md B1). We serve exactly one dated version.

export const UCP_VERSION = "2026-04-08";

/** Older versions a later issue may serve, mapped to their leaf profile URLs. Empty: only UCP_VERSION. */
export const SUPPORTED_OLDER_VERSIONS: readonly string[] = [];

const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Picks the version used to process a request from the platform's declared version (when it declares one).
 * Equal to ours or one we list → that version; anything else → `version_unsupported`.
 * @throws AppError version_unsupported, invalid_ucp_agent
 */
export const negotiateVersion = (platformVersion: string | undefined): string => {
  if (platformVersion === undefined) return UCP_VERSION;
  if (!VERSION_PATTERN.test(platformVersion)) {
    throw new AppError(
      "invalid_ucp_agent",
      `UCP-Agent version "${platformVersion}" is not a YYYY-MM-DD date`,
    );
  }
  if (platformVersion === UCP_VERSION || SUPPORTED_OLDER_VERSIONS.includes(platformVersion))
    return platformVersion;
  throw new AppError(
    "version_unsupported",
    `UCP version ${platformVersion} is not supported; this service speaks ${UCP_VERSION}`,
    { details: { supported_versions: [UCP_VERSION, ...SUPPORTED_OLDER_VERSIONS] } },
  );
};
