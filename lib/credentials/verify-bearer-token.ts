import "server-only";

import { getBaseUrl } from "@/lib/config/env";
import { verifyAccessToken } from "@/lib/oauth/verify-access-token";

import { buyerAgentPrincipalId, type Principal } from "./principal";

/**
 * Verifies an access token from our authorization server and returns its principal, or null when it is
 * not valid (bad signature, `alg` other than ES256, wrong issuer/audience/typ, expired, revoked).
 * A buyer token (authorization_code) → the buyer principal with the token's scopes; a client_credentials token of
 * a registered platform client → a platform principal whose permissions are the token's scopes.
 */
export const verifyBearerToken = async (
  token: string,
): Promise<Extract<Principal, { kind: "buyer" | "platform" }> | null> => {
  const access = await verifyAccessToken(token, { baseUrl: getBaseUrl() });
  if (!access) return null;
  if (access.kind === "client") {
    return {
      kind: "platform",
      id: `oauth-client:${access.clientId}`,
      keyId: access.clientId,
      name: access.name,
      permissions: access.scopes,
    };
  }
  // the principal is the pair (buyer, agent): every checkout, cart and order an agent creates with the buyer's
  // token is that agent's alone; another agent of the same buyer sees none of them (DECISIONS B17)
  return {
    kind: "buyer",
    id: buyerAgentPrincipalId(access.buyerId, access.clientId),
    buyerId: access.buyerId,
    clientId: access.clientId,
    scopes: access.scopes,
  };
};
