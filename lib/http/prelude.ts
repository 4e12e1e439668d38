import "server-only";

import { asConformanceCaller, conformanceModeActive } from "@/lib/conformance/mode";
import { AppError, toAppError } from "@/lib/core/errors";
import { withHeadersSet } from "@/lib/core/known-body";
import { renderOAuthError } from "@/lib/oauth/render-oauth";
import { observed } from "@/lib/ops/access-log";
import { serverTimingValue, withServerTiming } from "@/lib/ops/server-timing";
import { handOverRequestSource, withRequestSource } from "@/lib/rate-limit/request-source";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { UCP_VERSION } from "@/lib/ucp/version";

import { errorHeaders } from "./auth-challenge";
import { browserVisitPage, isBrowserVisit } from "./browser-visit";
import { rateLimitRequest, requestSourceOf } from "./rate-limit";
import { errorResponse, jsonResponse } from "./render-rest";
import { echoableRequestId } from "./request-envelope";
import { assertCleanTarget, targetOf } from "./request-target";
import { NOSNIFF, REFERRER_POLICY } from "./security-headers";

// The one request prelude (STYLE.md §4) every route kind goes through: REST shopping, MCP, OAuth endpoints,
// discovery documents, inbound webhooks and the pages' API routes. In one place, so that a rule added here (a
// limit, the Request-Id echo, a rate limit) reaches every surface:
//   1. the rate-limit hook (by tier, keyed by credential or client address; RateLimit headers on every answer),
//   2. the request target decoded safely (request-target.ts),
//   3. a person's browser visit to a store API or MCP link answered with a page saying what it is (browser-visit.ts),
//      then the handler,
//   4. any error rendered in the body of the surface (UCP envelope, JSON-RPC, RFC 6749),
//   5. the client's Request-Id echoed on every answer, errors and 405s included,
//   6. a Server-Timing header on every answer (lib/ops/server-timing.ts: the stages the request went through), and
//      X-Content-Type-Options: nosniff (security-headers.ts).
// Body limits and JSON decoding are parse-body.ts (the handlers call it: some read JSON, some forms, some raw
// bytes for a signature); the Node HTTP server adds the same checks for what Next answers before any route
// (raw-request.ts).

/**
 * The client address this request's prelude resolved, handed over to calls its handler makes back into this
 * service over HTTP (the mounted bridge): see lib/rate-limit/client-address.ts.
 */
export const handOverClientAddress = handOverRequestSource;

export type RouteKind = "ucp" | "mcp" | "oauth" | "discovery" | "webhook" | "page-api";

type RouteParams = Record<string, string | string[] | undefined>;
export type RouteContext = { params: Promise<RouteParams> };
export type Handler = (request: Request, context: RouteContext) => Promise<Response>;

/**
 * Per-caller rate limits by tier (rate-limit.ts, DECISIONS.md B15). Called once per request before any work;
 * returns the RateLimit headers of the answer, or throws AppError rate_limited to refuse.
 */
export const applyRateLimit = (request: Request, kind: RouteKind, source: string) =>
  rateLimitRequest(request, kind, source);

/** A JSON-RPC error answer (MCP): protocol errors keep their HTTP status (UCP §9: HTTP status primary). */
const jsonRpcErrorResponse = (error: AppError, requestId: string | null): Response => {
  const data: Record<string, unknown> = {
    code: error.code,
    content: error.code === "internal_error" ? "Internal error" : error.message,
    ...(error.path ? { path: error.path } : {}),
    ...(typeof error.details?.retry_after === "number" ? { retry_after: error.details.retry_after } : {}),
  };
  const body = { jsonrpc: "2.0", id: null, error: { code: error.spec.mcpCode, message: data.content, data } };
  return jsonResponse(error.spec.httpStatus, JSON.stringify(body), requestId, errorHeaders(error));
};

/** Renders an error in the body its surface speaks. */
export const renderRouteError = (
  kind: RouteKind,
  error: AppError,
  requestId: string | null,
  version = UCP_VERSION,
): Response => {
  if (kind === "oauth") return renderOAuthError(error, requestId);
  if (kind === "mcp") return jsonRpcErrorResponse(error, requestId);
  return errorResponse(error, requestId, version);
};

/** The response with the Request-Id header set (withHeadersSet: a copy only when its headers are immutable). */
export const withRequestId = (response: Response, requestId: string | null): Response => {
  if (!requestId || response.headers.get("request-id") === requestId) return response;
  return withHeadersSet(response, [["request-id", requestId]]);
};

/** The response with `extra` headers added where it has none of that name (the RateLimit headers). */
const withHeaders = (response: Response, extra: Record<string, string>): Response => {
  const missing = Object.entries(extra).filter(([name]) => !response.headers.has(name));
  if (missing.length === 0) return response;
  return withHeadersSet(response, missing);
};

/**
 * The headers every answer of the prelude ends with: its Server-Timing, nosniff (a JSON answer, an OAuth error
 * page or a 405 is never to be sniffed into something a browser would run) and a Referrer-Policy unless the route
 * chose its own (security-headers.ts).
 */
const withClosingHeaders = (response: Response): Response => {
  const value = serverTimingValue();
  return withHeadersSet(response, [
    NOSNIFF,
    ...(response.headers.has(REFERRER_POLICY[0]) ? [] : [REFERRER_POLICY]),
    ...(value ? [["server-timing", value] as const] : []),
  ]);
};

/** Wraps a route handler in the prelude, observed (lib/ops/access-log.ts: one access line and the HTTP metrics). */
export const prelude = (kind: RouteKind, handler: Handler): Handler => observed(kind, guarded(kind, handler));

const guarded =
  (kind: RouteKind, handler: Handler): Handler =>
  async (incoming, context) => {
    // the conformance store's keyless calls, in conformance mode only (lib/conformance/mode.ts)
    const request =
      kind === "ucp" && conformanceModeActive()
        ? await asConformanceCaller(incoming, context?.params)
        : incoming;
    const requestId = echoableRequestId(request.headers);
    const source = requestSourceOf(request);
    let limitHeaders: Record<string, string> = {};
    // the handler runs with its client address at hand, for the failed-authentication counters
    const answer = () =>
      withRequestSource(source, async () => {
        try {
          limitHeaders = await applyRateLimit(request, kind, source);
          assertCleanTarget(targetOf(request));
          if ((kind === "ucp" || kind === "mcp") && isBrowserVisit(request)) {
            const page = await browserVisitPage(request);
            if (page) return withHeaders(page, limitHeaders);
          }
          return withHeaders(withRequestId(await handler(request, context), requestId), limitHeaders);
        } catch (thrown) {
          return withHeaders(renderRouteError(kind, toAppError(thrown), requestId), limitHeaders);
        }
      });
    return withServerTiming(async () => withClosingHeaders(await answer()));
  };

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

const param = (params: RouteParams, name: string): string | undefined => {
  const value = params[name];
  return typeof value === "string" ? value : undefined;
};

/**
 * 405 in the surface's body with an Allow header. Under /s/<slug>/ an unknown store is reported first, as
 * everywhere else on that prefix.
 */
const methodNotAllowed = (kind: RouteKind, allowed: readonly string[]): Handler =>
  prelude(kind, async (request, context) => {
    const slug = param((await context?.params) ?? {}, "store_slug");
    if (slug !== undefined && (kind === "ucp" || kind === "discovery")) await getStoreOrThrow(slug);
    throw new AppError(
      "method_not_allowed",
      `${request.method} is not allowed here; use ${allowed.join(", ")}`,
      { headers: { allow: allowed.join(", ") } },
    );
  });

/**
 * Every HTTP method of a route file, each through the prelude: the given handlers, and a 405 in the surface's
 * body for the rest (Next's own 405 has an empty body and no Request-Id). Usage:
 * `export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("oauth", { POST: tokenEndpoint })`.
 */
export const routeMethods = (
  kind: RouteKind,
  handlers: Partial<Record<Method, Handler>>,
): Record<Method, Handler> => {
  const fallback = methodNotAllowed(kind, Object.keys(handlers));
  return Object.fromEntries(
    METHODS.map((m) => {
      const handler = handlers[m];
      return [m, handler ? prelude(kind, handler) : fallback];
    }),
  ) as Record<Method, Handler>;
};
