import "server-only";

import { randomUUID } from "node:crypto";

import { getBaseUrl, getBridgeUrl, isOAuthTestMode } from "@/lib/config/env";
import { AppError, toAppError } from "@/lib/core/errors";
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

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/** Page-level hardening for OAuth pages: not framable (RFC 9700 §4.16 clickjacking), never cached. */
export const OAUTH_PAGE_HEADERS = {
  "content-security-policy": "frame-ancestors 'none'; default-src 'none'; style-src 'unsafe-inline'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  ...NO_STORE,
};

/** The error page of the authorization endpoint: shown, never redirected (RFC 6749 §4.1.2.1). */
const errorPage = (error: string, description: string): Response =>
  new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head>` +
      `<body style="font-family:system-ui;max-width:36rem;margin:3rem auto"><h1>This authorization request cannot be processed</h1>` +
      `<p><code data-error>${escapeHtml(error)}</code></p><p>${escapeHtml(description)}</p>` +
      `<p>Return to the application that sent you here and try again.</p></body></html>`,
    { status: 400, headers: { "content-type": "text/html; charset=utf-8", ...OAUTH_PAGE_HEADERS } },
  );

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
