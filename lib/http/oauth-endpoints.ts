import "server-only";

import { randomUUID } from "node:crypto";

import { getBaseUrl, getBridgeUrl, isOAuthTestMode } from "@/lib/config/env";
import { AppError, toAppError } from "@/lib/core/errors";
import { OAUTH_ERROR_PATH, oauthErrorPageUrl } from "@/lib/oauth/error-ticket";
import { exchangeToken } from "@/lib/oauth/exchange-token";
import { renderOAuthError } from "@/lib/oauth/render-oauth";
import { revokeToken } from "@/lib/oauth/revoke-token";
import { startAuthorization } from "@/lib/oauth/start-authorization";

import { readBodyText } from "./parse-body";
import { echoableRequestId } from "./request-envelope";

// Surface adapters of the OAuth endpoints: they parse HTTP, call lib/oauth, and render in RFC 6749 form (errors
// through render-oauth.ts) — never the UCP envelope. Route files are one-liners over these.

const FORM_LIMIT_BYTES = 16 * 1024;
// C0 controls and DEL never belong in an OAuth parameter
const CONTROL = /[\u0000-\u001f\u007f]/;

/** RFC 6749 §3.2: token requests are application/x-www-form-urlencoded. @throws AppError invalid_request */
const readForm = async (request: Request): Promise<URLSearchParams> => {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new AppError("invalid_request", "Send the request as application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(await readBodyText(request, FORM_LIMIT_BYTES));
  // a NUL or control character in a code, token or client id would reach the database raw
  for (const [name, value] of form) {
    if (CONTROL.test(name) || CONTROL.test(value)) {
      throw new AppError(
        "invalid_request",
        `Form parameter "${name.replace(/[^\x20-\x7e]/g, "?")}" contains a control character`,
      );
    }
  }
  return form;
};

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/** POST /ucp/oauth2/token */
export const tokenEndpoint = async (request: Request): Promise<Response> => {
  const requestId = echoableRequestId(request.headers) ?? randomUUID();
  try {
    const form = await readForm(request);
    const body = await exchangeToken(form, {
      authorization: request.headers.get("authorization"),
      baseUrl: getBaseUrl(),
    });
    return Response.json(body, { headers: { ...NO_STORE, "request-id": requestId } });
  } catch (thrown) {
    return renderOAuthError(toAppError(thrown), requestId);
  }
};

/** POST /ucp/oauth2/revoke (RFC 7009: 200 with an empty body, also for unknown tokens) */
export const revocationEndpoint = async (request: Request): Promise<Response> => {
  const requestId = echoableRequestId(request.headers) ?? randomUUID();
  try {
    const form = await readForm(request);
    await revokeToken(form, { authorization: request.headers.get("authorization"), baseUrl: getBaseUrl() });
    return new Response(null, { status: 200, headers: { ...NO_STORE, "request-id": requestId } });
  } catch (thrown) {
    return renderOAuthError(toAppError(thrown), requestId);
  }
};

/**
 * The authorization endpoint's errors are shown, never redirected to the client (RFC 6749 §4.1.2.1): the browser
 * goes to our own error page, in the site's frame, with what happened in a signed ticket (lib/oauth/error-ticket.ts).
 * Should the ticket itself fail (no key: the database is down), the page still says the request failed.
 */
const errorPage = async (error: string, description: string): Promise<Response> => {
  const baseUrl = getBaseUrl();
  const location = await oauthErrorPageUrl({ error, description }, { baseUrl }).catch(
    () => new URL(OAUTH_ERROR_PATH, baseUrl).href,
  );
  return new Response(null, {
    status: 303,
    headers: { location, ...NO_STORE },
  });
};

/** GET /ucp/oauth2/authorize */
export const authorizationEndpoint = async (request: Request): Promise<Response> => {
  try {
    const outcome = await startAuthorization(new URL(request.url).searchParams, {
      baseUrl: getBaseUrl(),
      bridgeUrl: getBridgeUrl(),
      testMode: isOAuthTestMode(),
    });
    if (outcome.kind === "error_page") return errorPage(outcome.error, outcome.description);
    return new Response(null, { status: 303, headers: { location: outcome.location, ...NO_STORE } });
  } catch (thrown) {
    const error = toAppError(thrown);
    return errorPage(
      error.code === "internal_error" ? "server_error" : error.code,
      error.code === "internal_error" ? "Internal error" : error.message,
    );
  }
};
