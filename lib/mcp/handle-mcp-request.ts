import "server-only";

import { randomUUID } from "node:crypto";

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import { getBaseUrl } from "@/lib/config/env";
import { AppError, toAppError } from "@/lib/core/errors";
import type { AnyOperation } from "@/lib/core/operation";
import { tierOf } from "@/lib/credentials/principal";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import { parseJsonText, readBodyBytes } from "@/lib/http/parse-body";
import { jsonResponse } from "@/lib/http/render-rest";
import { echoableRequestId, readRequestEnvelope } from "@/lib/http/request-envelope";
import { resolveCaller } from "@/lib/http/resolve-caller";
import { bearerChallenge } from "@/lib/oauth/bearer-challenge";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { UCP_VERSION } from "@/lib/ucp/version";

import { toJsonRpcError } from "./render-mcp";
import { createMcpServer } from "./server";

// The MCP surface adapter for `/mcp` and `/s/<slug>/mcp`: HTTP-level envelope checks (Request-Id, UCP-Agent,
// credentials, store) answer with their HTTP status and a JSON-RPC error body; then a fresh stateless SDK server
// and transport handle the JSON-RPC message (DECISIONS.md A).

export type McpSurface = {
  name: string;
  instructions: string;
  tools: readonly AnyOperation[];
  storeSlug?: string;
  /**
   * "buyer-bearer": the account surface (seed §5 rule 9) — no Request-Id/UCP-Agent or tool meta needed; only the
   * buyer's bearer counts (X-API-Key is not a credential here). Default: the UCP shopping envelope.
   */
  auth?: "ucp-envelope" | "buyer-bearer";
};

/** The account surface: its own 401 challenge points at its RFC 9728 metadata (issue #6). */
const resolveBuyerBearer = async (request: Request, resourcePath: string) => {
  const baseUrl = getBaseUrl();
  const authorization = request.headers.get("authorization");
  if (authorization === null) {
    throw new AppError("identity_required", "This surface needs the buyer's bearer token", {
      headers: { "WWW-Authenticate": bearerChallenge({ baseUrl, resourcePath }) },
    });
  }
  try {
    const principal = await resolvePrincipal({ apiKey: null, authorization });
    if (principal.kind === "buyer") return principal;
    throw new AppError("invalid_token", "This surface needs a buyer token (authorization_code grant)");
  } catch (thrown) {
    const error = toAppError(thrown);
    if (error.code !== "invalid_token") throw error;
    throw new AppError("invalid_token", error.message, {
      headers: { "WWW-Authenticate": bearerChallenge({ baseUrl, error: "invalid_token", resourcePath }) },
    });
  }
};

const jsonRpcErrorResponse = (error: AppError, requestId: string | null, id: unknown = null): Response => {
  const body = { jsonrpc: "2.0", id, error: toJsonRpcError(error, requestId) };
  return jsonResponse(error.spec.httpStatus, JSON.stringify(body), requestId, error.headers);
};

const rpcId = (body: unknown): unknown =>
  typeof body === "object" && body !== null && "id" in body ? (body as { id: unknown }).id : null;

/** Streamable HTTP requires this Accept header; plain JSON clients (curl) get it added rather than a 406. */
const withMcpAccept = (request: Request): Request => {
  const accept = request.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return request;
  const headers = new Headers(request.headers);
  headers.set("accept", "application/json, text/event-stream");
  return new Request(request.url, { method: request.method, headers });
};

export const handleMcpRequest = async (request: Request, surface: McpSurface): Promise<Response> => {
  const echoId = echoableRequestId(request.headers);
  if (request.method !== "POST") {
    // A stateless server has no GET stream to offer (DECISIONS.md A: answer GET with 405 ourselves).
    const error = new AppError(
      "method_not_allowed",
      `${request.method} is not supported on MCP; POST JSON-RPC`,
      {
        headers: { allow: "POST" },
      },
    );
    return jsonRpcErrorResponse(error, echoId);
  }
  let body: unknown;
  try {
    const isAccount = surface.auth === "buyer-bearer";
    const envelope = isAccount
      ? { requestId: echoId ?? randomUUID(), agentProfile: "", ucpVersion: UCP_VERSION }
      : readRequestEnvelope(request.headers);
    const store = surface.storeSlug === undefined ? null : await getStoreOrThrow(surface.storeSlug);
    const now = new Date();
    const rawBody = await readBodyBytes(request);
    const { principal, tier } = isAccount
      ? await resolveBuyerBearer(request, new URL(request.url).pathname).then((buyer) => ({
          principal: buyer,
          tier: tierOf(buyer),
        }))
      : await resolveCaller(request, { body: rawBody, agentProfile: envelope.agentProfile, store, now });
    body = parseJsonText(rawBody.toString("utf8"), request.headers.get("content-type"));
    if (body === undefined) throw new AppError("invalid_request", "Empty body: send a JSON-RPC 2.0 message");

    let protocolStatus = 200;
    const server = createMcpServer({
      name: surface.name,
      instructions: surface.instructions,
      tools: surface.tools,
      requiresAgentMeta: !isAccount,
      context: {
        requestId: envelope.requestId,
        principal,
        tier,
        store,
        ucpVersion: envelope.ucpVersion,
        baseUrl: getBaseUrl(),
        now,
      },
      onProtocolError: (status) => {
        protocolStatus = status;
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(withMcpAccept(request), { parsedBody: body });
      const headers = new Headers(response.headers);
      headers.set("request-id", envelope.requestId);
      headers.set("cache-control", "no-store");
      // UCP §9: over Streamable HTTP the HTTP status is primary, the JSON-RPC code secondary.
      const status = response.status === 200 ? protocolStatus : response.status;
      return new Response(await response.text(), { status, headers });
    } finally {
      await server.close();
    }
  } catch (thrown) {
    return jsonRpcErrorResponse(toAppError(thrown), echoId, rpcId(body));
  }
};
