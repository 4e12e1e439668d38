import "server-only";

import { AppError } from "@/lib/core/errors";

import { formatScope, narrowScopes } from "../checks/scope";
import type { AuthenticatedClient } from "../client-auth";
import { issueAccessToken } from "../tokens";
import type { TokenResponse } from "./token-set";

// grant_type=client_credentials (seed §5 rule 5): a registered confidential platform client, authenticated with its
// secret, gets an access token for its own permissions. No refresh token (RFC 6749 §4.4.3).

/** @throws AppError invalid_client, invalid_scope */
export const exchangeClientCredentials = async (
  form: URLSearchParams,
  client: AuthenticatedClient,
  { baseUrl, now }: { baseUrl: string; now: Date },
): Promise<TokenResponse> => {
  if (client.kind !== "confidential") {
    throw new AppError(
      "invalid_client",
      "client_credentials needs a registered client and its client_secret",
    );
  }
  const scopes = narrowScopes(form.get("scope"), client.scopes);
  const { accessToken, expiresIn } = await issueAccessToken({
    baseUrl,
    subject: client.clientId,
    clientId: client.clientId,
    scopes,
    kind: "client",
    now,
  });
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: expiresIn,
    scope: formatScope(scopes),
  };
};
