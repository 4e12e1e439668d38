import type { AppError } from "@/lib/core/errors";
import { logError } from "@/lib/core/log";

// The OAuth renderer (STYLE.md §6): OAuth endpoints (token, revocation, authorization errors) always answer in the
// RFC 6749 §5.2 form `{error, error_description}`, never the UCP envelope. Our table's codes map onto the RFC's
// registered codes here, in one place; the grants of the Buyer identity issue throw AppErrors like everything else.

/** RFC 6749 §4.1.2.1 / §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1 error codes. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_token"
  | "insufficient_scope"
  | "unsupported_token_type"
  | "unsupported_response_type";

export type OAuthErrorBody = { error: OAuthErrorCode; error_description: string; retry_after?: number };

const FROM_APP_CODE: Partial<Record<AppError["code"], OAuthErrorCode>> = {
  invalid_request: "invalid_request",
  malformed_json: "invalid_request",
  unsupported_media_type: "invalid_request",
  payload_too_large: "invalid_request",
  method_not_allowed: "invalid_request",
  invalid_api_key: "invalid_client",
  invalid_token: "invalid_token",
  insufficient_scope: "insufficient_scope",
  insufficient_trust: "access_denied",
  rate_limited: "temporarily_unavailable",
  service_unavailable: "temporarily_unavailable",
  invalid_client: "invalid_client",
  invalid_grant: "invalid_grant",
  unsupported_grant_type: "unsupported_grant_type",
  invalid_scope: "invalid_scope",
  unauthorized_client: "unauthorized_client",
  access_denied: "access_denied",
  unsupported_response_type: "unsupported_response_type",
};

// a rate limit keeps its 429 too (RFC 6585), so a client tells "slow down" from "the server is down" (503)
const HTTP_LEVEL: ReadonlySet<AppError["code"]> = new Set([
  "method_not_allowed",
  "payload_too_large",
  "rate_limited",
]);

/** The RFC status for a code: 401 for client/token authentication, 403 for scope, 503 busy, 500, else 400. */
const statusFor = (error: OAuthErrorCode): number => {
  if (error === "invalid_client" || error === "invalid_token") return 401;
  if (error === "insufficient_scope") return 403;
  if (error === "temporarily_unavailable") return 503;
  if (error === "server_error") return 500;
  return 400;
};

/** An OAuth error response: `{error, error_description}`, `Cache-Control: no-store` (RFC 6749 §5.1). */
export const oauthErrorResponse = (
  error: OAuthErrorCode,
  description: string,
  {
    requestId = null,
    headers = {},
    status = statusFor(error),
    retryAfter,
  }: {
    requestId?: string | null;
    headers?: Record<string, string>;
    status?: number;
    retryAfter?: number;
  } = {},
): Response => {
  const all = new Headers({
    "content-type": "application/json",
    "cache-control": "no-store",
    pragma: "no-cache",
  });
  if (requestId) all.set("request-id", requestId);
  // RFC 6749 §5.2: a client that failed authentication with HTTP Basic gets a WWW-Authenticate challenge
  if (error === "invalid_client") all.set("www-authenticate", 'Basic realm="oauth"');
  if (error === "invalid_token") all.set("www-authenticate", 'Bearer error="invalid_token"');
  for (const [k, v] of Object.entries(headers)) all.set(k, v);
  const body: OAuthErrorBody = {
    error,
    error_description: description,
    ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
  };
  return new Response(JSON.stringify(body), { status, headers: all });
};

/** Renders any AppError on an OAuth endpoint. Unexpected errors become `server_error`, their cause logged only. */
export const renderOAuthError = (appError: AppError, requestId: string | null = null): Response => {
  const error = FROM_APP_CODE[appError.code] ?? "server_error";
  if (error === "server_error") logError(appError, requestId);
  const description = error === "server_error" ? "Internal error" : appError.message;
  // HTTP-level refusals keep their own status (405 with Allow, 413) inside the RFC 6749 body
  const status = HTTP_LEVEL.has(appError.code) ? appError.spec.httpStatus : undefined;
  const retryAfter = appError.details?.retry_after;
  return oauthErrorResponse(error, description, {
    requestId,
    headers: appError.headers,
    ...(status ? { status } : {}),
    ...(typeof retryAfter === "number" ? { retryAfter } : {}),
  });
};
