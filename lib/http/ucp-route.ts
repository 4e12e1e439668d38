import "server-only";

import { randomUUID } from "node:crypto";

import { negotiateWithAgent } from "@/lib/agents/negotiate-agent";
import { getBaseUrl } from "@/lib/config/env";
import { conformanceInstruments } from "@/lib/conformance/payment-handlers";
import { AppError, toAppError } from "@/lib/core/errors";
import type { AnyOperation, OperationContext } from "@/lib/core/operation";
import { timeStage, timeStageSync } from "@/lib/ops/server-timing";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { UCP_VERSION } from "@/lib/ucp/version";
import { handlerDocsAt, isOlderVersion, type OlderVersion } from "@/lib/ucp/versions";
import { existsAt, translateRequest, translateResponse } from "@/lib/ucp/versions/translate";

import { errorHeaders } from "./auth-challenge";
import { executeOperation, outcomeError, refuseInvalidUnderUsedKey } from "./execute-operation";
import { decodeUtf8, parseJsonText, readBodyBytes } from "./parse-body";
import { routeMethods, type Handler, type Method, type RouteContext } from "./prelude";
import { errorResponse, jsonResponse } from "./render-rest";
import {
  assertIdempotencyKey,
  echoableRequestId,
  readRequestEnvelope,
  readRequestId,
  readUcpAgent,
  type RequestEnvelope,
} from "./request-envelope";
import { identifyCaller, verifyCallerSignature } from "./resolve-caller";

// The REST wrapper (STYLE.md §5): `export const POST = ucpRoute(createCart)`. It applies the envelope rules of
// seed §4 in one place — Request-Id, UCP-Agent, Idempotency-Key on state-changing calls — resolves the caller
// (a key wins over a bearer), parses the bare JSON body, runs the operation and renders the outcome.

type RouteParams = Record<string, string | string[] | undefined>;
export type { RouteContext };

const param = (params: RouteParams, name: string): string | undefined => {
  const value = params[name];
  return typeof value === "string" ? value : undefined;
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A GET's query parameters (list filters and cursors); undefined when there are none. */
const queryInput = (request: Request): Record<string, string> | undefined => {
  const params = new URL(request.url).searchParams;
  return params.size > 0 ? Object.fromEntries(params) : undefined;
};

/** Builds the operation input: the bare JSON body (or a GET's query) with the path's resource id merged in. */
const restInput = (body: unknown, id: string | undefined): unknown => {
  if (id === undefined) return body ?? {};
  if (body === undefined) return { id };
  return isPlainObject(body) ? { ...body, id } : body;
};

export type UcpRouteOptions = {
  /** Read a JSON body (POST/PUT). GET and bodiless POSTs (cancel) set false. */
  readsBody?: boolean;
  /**
   * seed §4 applies the envelope rules to `/s/<slug>/…`; the global REST catalog (`/catalog/*`) is open at the
   * anonymous tier, so there Request-Id and UCP-Agent are optional — validated and echoed when sent.
   */
  envelope?: "required" | "optional";
};

const readOptionalEnvelope = (headers: Headers): RequestEnvelope => {
  const requestId = headers.has("request-id") ? readRequestId(headers) : randomUUID();
  const agent = headers.has("ucp-agent")
    ? readUcpAgent(headers)
    : { agentProfile: "", ucpVersion: UCP_VERSION };
  return { requestId, ...agent };
};

export const ucpRoute =
  (op: AnyOperation, { readsBody = true, envelope: envelopeMode = "required" }: UcpRouteOptions = {}) =>
  async (request: Request, context: RouteContext): Promise<Response> => {
    const echoId = echoableRequestId(request.headers);
    let version: string | undefined;
    try {
      const envelope = timeStageSync("envelope", () =>
        envelopeMode === "required"
          ? readRequestEnvelope(request.headers)
          : readOptionalEnvelope(request.headers),
      );
      version = envelope.ucpVersion;
      // Next passes no params for a route without dynamic segments (/catalog/search in a production build)
      const params = (await context?.params) ?? {};
      const slug = param(params, "store_slug");
      const store =
        slug === undefined
          ? null
          : await timeStage("store", () =>
              getStoreOrThrow(slug, { forRead: !op.mutates || op.storeFromCache === true }),
            );
      const now = new Date();
      const rawBody = readsBody ? await readBodyBytes(request) : Buffer.alloc(0);
      // The caller's credentials are checked before the agent profile is fetched: a bad key or an anonymous
      // call to a token-tier operation never makes the service fetch a URL the caller named.
      const identified = await identifyCaller(request, op);
      if (envelope.agentProfile && identified.fetchesProfile) {
        envelope.ucpVersion = await timeStage("profile", () =>
          negotiateWithAgent(envelope.agentProfile, store, "rest"),
        );
        version = envelope.ucpVersion;
      }
      const older: OlderVersion | null = isOlderVersion(envelope.ucpVersion) ? envelope.ucpVersion : null;
      // an operation the negotiated version does not define (cart, catalog, order read before 2026-04-08) is
      // refused before anything is read or written (docs/ucp-versions.md §2)
      if (older && !existsAt(older, op.name)) {
        throw new AppError(
          "capabilities_incompatible",
          `${op.name} does not exist at UCP ${older}; it exists from UCP ${UCP_VERSION}: declare ${UCP_VERSION} ` +
            `in your platform profile to use it`,
        );
      }
      const { principal, tier } = await verifyCallerSignature(request, identified, {
        body: rawBody,
        agentProfile: envelope.agentProfile,
        store,
        now,
      });

      let idempotencyKey: string | null = null;
      if (op.mutates) {
        const header = request.headers.get("idempotency-key");
        if (header === null || header.trim() === "") {
          throw new AppError(
            "missing_idempotency_key",
            `Idempotency-Key header is required on ${request.method} ${new URL(request.url).pathname}`,
          );
        }
        idempotencyKey = assertIdempotencyKey(header, "header:Idempotency-Key");
      }

      const body = readsBody
        ? parseJsonText(decodeUtf8(rawBody), request.headers.get("content-type"))
        : undefined;
      const ctx: OperationContext = {
        requestId: envelope.requestId,
        principal,
        tier,
        store,
        idempotencyKey,
        agentProfile: envelope.agentProfile,
        ucpVersion: envelope.ucpVersion,
        baseUrl: getBaseUrl(),
        now,
      };
      const raw = body === undefined && request.method === "GET" ? queryInput(request) : body;
      // an older request becomes ours before the operation (and its idempotency hash) sees it
      let translated = raw;
      if (older && store) {
        try {
          translated = translateRequest(older, op.name, raw, {
            id: param(params, "id"),
            storeCurrency: store.currency,
          });
        } catch (refusal) {
          // refused at the version's edge, before the operation's fingerprint: a used key answers its conflict
          await refuseInvalidUnderUsedKey(op, ctx);
          throw refusal;
        }
      }
      // the conformance store's test handlers pay through the card rail's sandbox (conformance mode only)
      const input = conformanceInstruments(slug, translated);
      const outcome = await executeOperation(op, ctx, restInput(input, param(params, "id")));
      // an operation's own 401 is stored without its headers: it gets its Bearer challenge back here
      const refused = outcome.status === 401 ? outcomeError(outcome) : null;
      const headers = {
        ...(refused ? errorHeaders(refused) : {}),
        ...(outcome.replayed ? { "idempotent-replayed": "true" } : {}),
      };
      if (!older) return jsonResponse(outcome.status, outcome.bodyText, envelope.requestId, headers);
      // stored (and replayed) in our shape; translated on every answer, so a replay answers the same bytes
      const answer = translateResponse(
        older,
        op.name,
        outcome.status,
        JSON.parse(outcome.bodyText) as unknown,
        handlerDocsAt(ctx.baseUrl),
      );
      return jsonResponse(answer.status, JSON.stringify(answer.body), envelope.requestId, headers);
    } catch (thrown) {
      return errorResponse(toAppError(thrown), echoId, version);
    }
  };

/**
 * Every HTTP method of a UCP route file through the prelude, with a 405 in the UCP envelope for the rest.
 * Usage: `export const { GET, POST, PUT, PATCH, DELETE } = withMethods({ POST: ucpRoute(op) })`.
 */
export const withMethods = (handlers: Partial<Record<Method, Handler>>): Record<Method, Handler> =>
  routeMethods("ucp", handlers);
