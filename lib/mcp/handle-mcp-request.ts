import "server-only";

import { randomUUID } from "node:crypto";

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import { getBaseUrl } from "@/lib/config/env";
import { AppError, toAppError } from "@/lib/core/errors";
import type { AnyOperation } from "@/lib/core/operation";
import { tierOf } from "@/lib/credentials/principal";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import { errorHeaders } from "@/lib/http/auth-challenge";
import { decodeUtf8, parseJsonText, readBodyBytes } from "@/lib/http/parse-body";
import { jsonResponse } from "@/lib/http/render-rest";
import { echoableRequestId, readRequestEnvelope, type RequestEnvelope } from "@/lib/http/request-envelope";
import { identifyCaller, verifyCallerSignature } from "@/lib/http/resolve-caller";
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

/** The account surface: its own 401 challenge points at its RFC 9728 metadata. */
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
  return jsonResponse(error.spec.httpStatus, JSON.stringify(body), requestId, errorHeaders(error));
};

const isValidId = (id: unknown): boolean =>
  id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));

const rpcId = (body: unknown): unknown => {
  if (typeof body !== "object" || body === null || !("id" in body)) return null;
  const { id } = body as { id: unknown };
  return isValidId(id) ? id : null;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Why one message is not a JSON-RPC 2.0 request, notification or response; null when it is one. */
const invalidMessageReason = (message: unknown): string | null => {
  if (!isRecord(message)) return "a JSON-RPC message must be an object";
  if (message.jsonrpc !== "2.0") return 'jsonrpc must be exactly "2.0"';
  if ("id" in message && !isValidId(message.id)) return "id must be a string, a number or null";
  if ("method" in message) {
    if (typeof message.method !== "string") return "method must be a string";
    if ("params" in message && typeof message.params !== "object") return "params must be an object or array";
    return null;
  }
  if ("result" in message || "error" in message) return null;
  return "a request needs a method";
};

/**
 * JSON-RPC 2.0 §4-§6 before the SDK sees the body (its transport answers -32700 for a well-formed JSON value
 * that is not a valid request, and 202 with no body for an empty batch): an empty batch is one -32600 error;
 * an invalid request is -32600 with its id when it has a usable one. A batch with an invalid member is refused
 * whole, one -32600 per invalid member, so no part of a batch of state-changing calls runs on its own.
 */
const invalidJsonRpc = (body: unknown, requestId: string): Response | null => {
  const refuse = (reason: string, id: unknown) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32600, message: `Invalid Request: ${reason}`, data: { code: "invalid_request" } },
  });
  const answer = (payload: unknown) => jsonResponse(400, JSON.stringify(payload), requestId);
  if (Array.isArray(body)) {
    if (body.length === 0) return answer(refuse("an empty batch", null));
    const errors = body.flatMap((m) => {
      const reason = invalidMessageReason(m);
      return reason ? [refuse(reason, rpcId(m))] : [];
    });
    return errors.length > 0 ? answer(errors) : null;
  }
  const reason = invalidMessageReason(body);
  return reason ? answer(refuse(reason, rpcId(body))) : null;
};

/** Streamable HTTP requires this Accept header; plain JSON clients (curl) get it added rather than a 406. */
const withMcpAccept = (request: Request): Request => {
  const accept = request.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return request;
  const headers = new Headers(request.headers);
  headers.set("accept", "application/json, text/event-stream");
  return new Request(request.url, { method: request.method, headers });
};

/** JSON-RPC methods that are MCP transport, not UCP operations (DECISIONS.md B19): no UCP envelope needed. */
const isTransportMessage = (message: unknown): boolean => {
  const method = (message as { method?: unknown } | null)?.method;
  return (
    typeof method === "string" &&
    (method === "initialize" ||
      method === "ping" ||
      method === "tools/list" ||
      method.startsWith("notifications/"))
  );
};

/** The body as JSON when it parses, for what is decided before the body is checked; undefined otherwise. */
const peekJson = (rawBody: Uint8Array): unknown => {
  try {
    return JSON.parse(new TextDecoder().decode(rawBody)) as unknown;
  } catch {
    return undefined;
  }
};

/** True when every message of the body is transport (an unreadable body is not: the usual rules answer it). */
const isTransportOnly = (body: unknown): boolean => {
  if (body === undefined) return false;
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every(isTransportMessage);
};

/**
 * Whether the store may come from the row cache, as a REST route decides it per operation (ucp-route.ts): every
 * tool called is a read, or a write that moves no money (`storeFromCache`); the call that pays reads it fresh.
 */
const storeForRead = (body: unknown, tools: readonly AnyOperation[]): boolean =>
  (Array.isArray(body) ? body : [body]).every((message) => {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method !== "tools/call") return true;
    const op = tools.find((t) => t.name === m.params?.name);
    return op === undefined || !op.mutates || op.storeFromCache === true;
  });

/**
 * The UCP envelope of an MCP request. A stock MCP client sends neither Request-Id nor UCP-Agent on its
 * handshake (initialize, ping, tools/list, notifications): those go through without them (B19), with a Request-Id
 * of ours. Tool calls keep the seed's rules, and the missing header names itself.
 */
const mcpEnvelope = (headers: Headers, transportOnly: boolean): RequestEnvelope => {
  try {
    return readRequestEnvelope(headers);
  } catch (error) {
    const missing =
      error instanceof AppError &&
      (error.code === "missing_request_id" || error.code === "missing_ucp_agent");
    if (!transportOnly || !missing) throw error;
    return {
      requestId: echoableRequestId(headers) ?? randomUUID(),
      agentProfile: "",
      ucpVersion: UCP_VERSION,
    };
  }
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
    const rawBody = await readBodyBytes(request);
    const peeked = peekJson(rawBody);
    const envelope = isAccount
      ? { requestId: echoId ?? randomUUID(), agentProfile: "", ucpVersion: UCP_VERSION }
      : mcpEnvelope(request.headers, isTransportOnly(peeked));
    const store =
      surface.storeSlug === undefined
        ? null
        : await getStoreOrThrow(surface.storeSlug, { forRead: storeForRead(peeked, surface.tools) });
    const now = new Date();
    // Credentials first (no fetch); the signature, when there is one, is verified against the header's profile,
    // which every tool call's meta profile must equal (lib/mcp/server.ts).
    const { principal, tier } = isAccount
      ? await resolveBuyerBearer(request, new URL(request.url).pathname).then((buyer) => ({
          principal: buyer,
          tier: tierOf(buyer),
        }))
      : await verifyCallerSignature(request, await identifyCaller(request), {
          body: rawBody,
          agentProfile: envelope.agentProfile,
          store,
          now,
        });
    body = parseJsonText(decodeUtf8(rawBody), request.headers.get("content-type"));
    if (body === undefined) throw new AppError("invalid_request", "Empty body: send a JSON-RPC 2.0 message");
    const refused = invalidJsonRpc(body, envelope.requestId);
    if (refused) return refused;

    let protocolStatus = 200;
    let protocolHeaders: Record<string, string> = {};
    const server = createMcpServer({
      name: surface.name,
      instructions: surface.instructions,
      tools: surface.tools,
      requiresAgentMeta: !isAccount,
      headerProfile: envelope.agentProfile || undefined,
      context: {
        requestId: envelope.requestId,
        principal,
        tier,
        store,
        ucpVersion: envelope.ucpVersion,
        baseUrl: getBaseUrl(),
        now,
      },
      onProtocolError: (status, headers) => {
        protocolStatus = status;
        protocolHeaders = headers ?? {};
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
      // a tool call's refusal headers (a 401's Bearer challenge: the MCP SDK client starts OAuth from it)
      if (response.status === 200) for (const [k, v] of Object.entries(protocolHeaders)) headers.set(k, v);
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
