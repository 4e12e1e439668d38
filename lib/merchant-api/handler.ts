import "server-only";

import { randomUUID } from "node:crypto";

import { getBaseUrl } from "@/lib/config/env";
import { errorBody } from "@/lib/core/envelope";
import { AppError, toAppError } from "@/lib/core/errors";
import { resolveMerchantKey } from "@/lib/credentials/merchant-keys";
import { decodeUtf8, parseJsonText, readBodyBytes } from "@/lib/http/parse-body";
import type { Handler } from "@/lib/http/prelude";
import { errorResponse, jsonResponse } from "@/lib/http/render-rest";
import { assertIdempotencyKey, echoableRequestId, readRequestId } from "@/lib/http/request-envelope";
import { requestHash } from "@/lib/idempotency/request-hash";
import { withIdempotency, type StoredOutcome } from "@/lib/idempotency/with-idempotency";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { UCP_VERSION } from "@/lib/ucp/version";

import type { AnyMerchantRoute } from "./define";
import { MERCHANT_ROUTES } from "./routes";

// The merchant REST API's one handler (app/merchant/v1/stores/[store_slug]/[...path]/route.ts), in this order:
//   1. the merchant key (X-API-Key: acsm_…): none, malformed, unknown or revoked → invalid_merchant_key; a platform
//      key is not a merchant key,
//   2. the store: unknown, or not the key's store → the same store_not_found (a key never learns which slugs exist),
//   3. the route by method and path (route_not_found, method_not_allowed with Allow),
//   4. the key's permission (insufficient_scope),
//   5. the input: path parameters with the GET query or the JSON body, through the route's zod schema
//      (invalid_request with the JSONPath of the field), before anything runs.
// Errors come from the one error table, in the UCP error envelope (messages[0].code, path).

const matchPath = (pattern: string, segments: readonly string[]): Record<string, string> | null => {
  const parts = pattern.split("/").filter(Boolean);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i]!;
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name) params[name] = segment;
    else if (part !== segment) return null;
  }
  return params;
};

const zodPath = (path: readonly PropertyKey[]): string =>
  `$${path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const inputOf = async (
  request: Request,
  route: AnyMerchantRoute,
  params: Record<string, string>,
): Promise<unknown> => {
  if (route.method === "GET" || route.method === "DELETE") {
    return { ...Object.fromEntries(new URL(request.url).searchParams), ...params };
  }
  const body = parseJsonText(
    decodeUtf8(await readBodyBytes(request, route.maxBodyBytes)),
    request.headers.get("content-type"),
  );
  if (body === undefined) return params;
  if (!isPlainObject(body))
    throw new AppError("invalid_request", "The body must be a JSON object", { path: "$" });
  return { ...body, ...params };
};

export const merchantApiHandler: Handler = async (request, context) => {
  const echoId = echoableRequestId(request.headers);
  try {
    const requestId = request.headers.has("request-id") ? readRequestId(request.headers) : randomUUID();
    const params = (await context?.params) ?? {};
    const slug = typeof params.store_slug === "string" ? params.store_slug : "";
    const segments = Array.isArray(params.path) ? params.path : [];
    const caller = await resolveMerchantKey(request.headers.get("x-api-key"));
    const store = await getStoreOrThrow(slug);
    if (store.id !== caller.storeId) {
      throw new AppError("store_not_found", `No store with slug "${slug}"`, { path: "$.store_slug" });
    }
    const matching = MERCHANT_ROUTES.flatMap((r) => {
      const found = matchPath(r.path, segments);
      return found ? [{ route: r, params: found }] : [];
    });
    if (matching.length === 0) {
      throw new AppError("route_not_found", `No merchant API route ${request.method} /${segments.join("/")}`);
    }
    const match = matching.find((m) => m.route.method === request.method);
    if (!match) {
      const allowed = [...new Set(matching.map((m) => m.route.method))].join(", ");
      throw new AppError("method_not_allowed", `${request.method} is not allowed here; use ${allowed}`, {
        headers: { allow: allowed },
      });
    }
    const { route } = match;
    if (!caller.permissions.includes(route.permission)) {
      throw new AppError("insufficient_scope", `The merchant key lacks permission ${route.permission}`, {
        details: { required: [route.permission] },
      });
    }
    const parsed = route.input.safeParse(await inputOf(request, route, match.params));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError("invalid_request", issue.message, { path: zodPath(issue.path) });
    }
    const now = new Date();
    const runRoute = async (): Promise<StoredOutcome> => {
      try {
        const body = await route.run({ store, caller, baseUrl: getBaseUrl(), now }, parsed.data);
        return { status: route.status ?? 200, bodyText: JSON.stringify(body) };
      } catch (thrown) {
        const error = toAppError(thrown);
        // a crash is not an answer to keep: the retry runs again
        if (error.code === "internal_error") throw thrown;
        return { status: refusalStatus(error), bodyText: JSON.stringify(errorBody(error, UCP_VERSION)) };
      }
    };
    // A write retried with the same Idempotency-Key (a script that lost the answer to a refund) gets the first
    // answer back instead of running twice; the key is the merchant key's own (DECISIONS B8's scope).
    const idempotencyKey = request.headers.get("idempotency-key");
    const outcome =
      route.method === "GET" || idempotencyKey === null
        ? { ...(await runRoute()), replayed: false }
        : await withIdempotency(
            {
              principalId: `merchant-key:${caller.keyId}`,
              storeSlug: store.slug,
              operation: route.name,
              key: assertIdempotencyKey(idempotencyKey, "Idempotency-Key"),
              requestHash: requestHash(route.name, parsed.data),
              now,
            },
            runRoute,
          );
    return jsonResponse(
      outcome.status,
      outcome.bodyText,
      requestId,
      outcome.replayed ? { "idempotent-replayed": "true" } : undefined,
    );
  } catch (thrown) {
    const error = toAppError(thrown);
    const response = errorResponse(error, echoId);
    return new Response(response.body, { status: refusalStatus(error), headers: response.headers });
  }
};

/**
 * The UCP surfaces answer a business outcome (unsupported_coin, …) with 200 and ucp.status "error"; a script of
 * the merchant's checks the status, so here every refusal is a 4xx (422 for those).
 */
const refusalStatus = (error: AppError): number =>
  error.spec.kind === "business" ? 422 : error.spec.httpStatus;

/** The methods the route file serves (the prelude answers the rest with 405). */
