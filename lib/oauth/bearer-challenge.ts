import { protectedResourceMetadataUrl } from "./metadata";

// WWW-Authenticate challenges for protected resources (RFC 6750 §3; RFC 9728 §5.1 resource_metadata so a client
// can find the authorization server from a 401 alone). `error` comes first: seed §5 rule 2's exact prefix. The
// realm is the service's base URL: every resource here accepts the same buyer tokens, so there is one protection
// space.

export const bearerChallenge = ({
  baseUrl,
  error,
  scope,
  resourcePath = "",
}: {
  baseUrl: string;
  error?: "invalid_token" | "insufficient_scope";
  scope?: string;
  resourcePath?: string;
}): string => {
  const parts: string[] = [];
  if (error) parts.push(`error="${error}"`);
  parts.push(`realm="${baseUrl}"`);
  if (scope) parts.push(`scope="${scope}"`);
  parts.push(`resource_metadata="${protectedResourceMetadataUrl(baseUrl, resourcePath)}"`);
  return `Bearer ${parts.join(", ")}`;
};
