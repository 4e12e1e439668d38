import "server-only";

import { peekBodyText } from "@/lib/core/known-body";
import { accessLogger, logger } from "@/lib/core/log";
import type { Principal, TrustTier } from "@/lib/credentials/principal";

import { errorCodeOfBody, presentedPlatformKeyId, recordKeyCall } from "./key-call-log";
import { recordHttpRequest } from "./metrics";
import { requestScope } from "./request-scope";

// One access line per request, and the HTTP metrics, for every route: the route prelude (lib/http/prelude.ts)
// wraps each handler in `observed`. The line names the route by its pattern (/s/[store_slug]/orders/[id]), never
// the concrete path or query, which can carry a pay-link or cart token; the principal is the verified caller
// when a surface resolved one (noteCaller), else the kind of credential the request presented (a key wins over a
// bearer), and never the credential itself.

type RouteParams = Record<string, string | string[] | undefined>;
type Handler = (request: Request, context: { params: Promise<RouteParams> }) => Promise<Response>;

/** What the access line calls a caller: the credential kind (anonymous, key, bearer, signed). */
type PrincipalKind = "anonymous" | "key" | "bearer" | "signed";

const KIND_OF: Record<Principal["kind"], PrincipalKind> = {
  anonymous: "anonymous",
  platform: "key",
  buyer: "bearer",
  agent: "signed",
};

const callers = new WeakMap<Request, { principal: PrincipalKind; tier: TrustTier; keyId?: string }>();

/** Records who the surface found the caller to be, for the request's access line (and a platform key's log). */
export const noteCaller = (request: Request, principal: Principal, tier: TrustTier): void => {
  // a platform API key (not an OAuth client's token, whose keyId is the client) gets its calls recorded
  const keyId =
    principal.kind === "platform" && principal.id.startsWith("key:") ? principal.keyId : undefined;
  callers.set(request, { principal: KIND_OF[principal.kind], tier, ...(keyId ? { keyId } : {}) });
};

/**
 * After the answer: the call in its key's recent log (key-call-log.ts), with the error code of an error answer. A
 * request refused before its caller was resolved is attributed to the platform key it presented, if valid.
 */
const logKeyCall = async (noted: string | undefined, request: Request, route: string, response: Response) => {
  const json = (response.headers.get("content-type") ?? "").includes("json");
  // a business outcome (not_found, out_of_stock, …) is a 200 whose UCP envelope, first in the body, says "error"
  const errorCode = json ? errorCodeOfBody(await peekBodyText(response), response.status) : null;
  const keyId = noted ?? (await presentedPlatformKeyId(request.headers.get("x-api-key")));
  if (!keyId) return;
  await recordKeyCall({
    keyId,
    method: request.method,
    route,
    status: response.status,
    errorCode,
    requestId: response.headers.get("request-id"),
    at: new Date(),
  });
};

/** The credential a request presents, unverified: a key wins over a bearer (seed §5 rule 1). */
const presented = (headers: Headers): PrincipalKind => {
  if (headers.get("x-api-key")) return "key";
  if (/^bearer\s/i.test(headers.get("authorization") ?? "")) return "bearer";
  if (headers.get("signature-input")) return "signed";
  return "anonymous";
};

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * The route pattern of a request: each path segment that is a route parameter's value replaced by `[name]`, a
 * catch-all's segments by `[...name]`. Bounded by the route files, so it is also a safe metrics label.
 */
export const routePattern = (pathname: string, params: RouteParams): string => {
  const segments = pathname.split("/");
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "string") {
      const at = segments.findIndex((s, i) => i > 0 && decode(s) === value);
      if (at > 0) segments[at] = `[${name}]`;
    } else if (Array.isArray(value) && value.length > 0) {
      const at = segments.findIndex(
        (_s, i) => i > 0 && value.every((part, j) => decode(segments[i + j] ?? "") === part),
      );
      if (at > 0) segments.splice(at, value.length, `[...${name}]`);
    }
  }
  return segments.join("/") || "/";
};

/** Routes polled by load balancers and scrapers: their access lines are debug-level, not to drown the log. */
const QUIET_ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

/** `handler` with one access line and the HTTP metrics recorded for each request it answers. */
export const observed =
  (kind: string, handler: Handler): Handler =>
  async (request, context) => {
    const scope = requestScope.getStore();
    if (scope) scope.routed = true;
    const started = performance.now();
    const response = await handler(request, context);
    const seconds = (performance.now() - started) / 1000;
    try {
      const params = (await context?.params) ?? {};
      const route = routePattern(new URL(request.url).pathname, params);
      const caller = callers.get(request);
      recordHttpRequest({ kind, route, method: request.method, status: response.status }, seconds);
      const line = {
        kind,
        method: request.method,
        route,
        status: response.status,
        duration_ms: Math.round(seconds * 100_000) / 100,
        request_id: response.headers.get("request-id"),
        principal: caller?.principal ?? presented(request.headers),
        ...(caller ? { tier: caller.tier } : {}),
        ...(typeof params.store_slug === "string" ? { store: params.store_slug } : {}),
      };
      if (caller?.keyId || (!caller && response.status >= 400 && request.headers.has("x-api-key"))) {
        void logKeyCall(caller?.keyId, request, route, response).catch(() => undefined);
      }
      const quiet = QUIET_ROUTES.has(route) && response.status < 400;
      accessLogger()[quiet ? "debug" : "info"](line, "request");
    } catch (error) {
      // observing never changes the answer
      logger().error(`access log: ${(error as Error).message}`);
    }
    return response;
  };
