import "server-only";

import { AppError } from "@/lib/core/errors";
import { guardAuthCheck } from "@/lib/rate-limit/auth-failures";

import { authenticateClient } from "./client-auth";
import { exchangeAuthorizationCode } from "./grants/authorization-code";
import { exchangeClientCredentials } from "./grants/client-credentials";
import { exchangeRefreshToken } from "./grants/refresh-token";
import type { TokenResponse } from "./grants/token-set";

// The token endpoint's core (seed §5 rule 5): one file per grant; anything else — password, implicit, device… —
// is unsupported_grant_type (RFC 9700 §2.4: no resource owner password credentials grant).

const GRANTS = {
  authorization_code: exchangeAuthorizationCode,
  refresh_token: exchangeRefreshToken,
  client_credentials: exchangeClientCredentials,
} as const;

const isGrantType = (value: string): value is keyof typeof GRANTS => Object.hasOwn(GRANTS, value);

/**
 * Runs one token request (an already parsed form body).
 * @throws AppError invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type,
 * invalid_scope
 */
export const exchangeToken = async (
  form: URLSearchParams,
  { authorization, baseUrl, now = new Date() }: { authorization: string | null; baseUrl: string; now?: Date },
): Promise<TokenResponse> => {
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1)
      throw new AppError("invalid_request", `The ${name} parameter is repeated`);
  }
  const grantType = form.get("grant_type");
  if (!grantType) throw new AppError("invalid_request", "grant_type is required");
  if (!isGrantType(grantType)) {
    throw new AppError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
  }
  const client = await authenticateClient(form, authorization);
  // a wrong, used or expired authorization code or refresh token is a failed authentication: counted against
  // the source (lib/rate-limit/auth-failures.ts), refused with 429 before the next guess is checked
  return guardAuthCheck(null, ["invalid_grant"], () => GRANTS[grantType](form, client, { baseUrl, now }));
};
