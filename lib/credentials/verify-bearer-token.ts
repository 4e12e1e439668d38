import "server-only";

import type { Principal } from "./principal";

/**
 * Verifies a buyer access token and returns the buyer principal, or null when it is not valid.
 * No authorization server exists yet, so no token has been issued and none can be valid: every bearer is
 * rejected (`invalid_token`). Issue #6 (buyer identity) replaces this body with the ES256 JWT check.
 */
export const verifyBearerToken = async (
  token: string,
): Promise<Extract<Principal, { kind: "buyer" }> | null> => {
  void token;
  return null;
};
