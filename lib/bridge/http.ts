import {
  createUcpTransport,
  type AgentKey,
  type RetryPolicy,
  type UcpError,
} from "@agent-commerce/agent-kit";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import { forwardedClient, parseAddress, type Cidr } from "@/lib/config/cidr";

import type { BridgeContext } from "./context";
import { createBridgeServer } from "./server";

// The bridge over Streamable HTTP (mounted at {base_url}/bridge/mcp, or a process of its own): a fresh stateless
// server and transport per request (as lib/mcp does). The caller's X-API-Key and Authorization are what the tools
// forward (context.ts decides which goes where); a 401 from the service ends the request as HTTP 401 with the
// service's WWW-Authenticate (seed §5 rule 6), its resource metadata pointed at the bridge's own when configured
// (challengeMetadataUrl), so a stock MCP client's OAuth flow and silent refresh run.

export type BridgeOptions = {
  /** The service the bridge is a client of. */
  baseUrl: string;
  /** The bridge's own agent profile URL (UCP-Agent on every call; the service fetches the key from it). */
  agentProfileUrl: string;
  /** The bridge's signing key, published in that profile. */
  key: AgentKey;
  /** Another fetch (a test's in-process router). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  retry?: RetryPolicy;
  /**
   * The bridge's own RFC 9728 metadata URL. When set, a relayed 401's `resource_metadata` names it instead of the
   * service's (every other part of the challenge unchanged): the official MCP SDK client refuses metadata whose
   * `resource` does not cover the URL it called (the account MCP's does not cover {bridge_url}/mcp), and then
   * never refreshes; the bridge's metadata names the same authorization server, which accepts the bridge URL as
   * `resource`. Unset: the challenge is relayed byte for byte.
   */
  challengeMetadataUrl?: string;
  /**
   * How the service learns who this request's caller is (its budgets and failed-authentication counters are per
   * client address): headers for the bridge's calls, resolved from what the bridge saw, never from what the caller
   * claims; `release` runs when the request ends. The mounted bridge hands the address over in process (the
   * prelude's handOverClientAddress); the stand-alone one forwards it (standaloneCallerAddress). Unset: the
   * bridge's calls count as the bridge's own.
   */
  callerAddress?: () => CallerAddress | undefined;
};

/** Headers naming the bridge's caller to the service, and what to do when the caller's request ends. */
export type CallerAddress = { headers: Record<string, string>; release?: () => void };

/**
 * The stand-alone bridge's caller as it saw it: its socket peer, or behind the bridge's own proxies
 * (TRUSTED_PROXIES of the bridge process) the first hop they vouch for, the same rule the service applies
 * (lib/config/cidr.ts). Sent as `Forwarded: for=`, which the service believes only when the bridge's address is in
 * the service's TRUSTED_PROXIES (README: running the bridge apart).
 */
export const standaloneCallerAddress = (
  peer: string | undefined,
  headers: Headers,
  trustedProxies: readonly Cidr[],
): CallerAddress | undefined => {
  const address = parseAddress(peer ?? "");
  if (!address) return undefined;
  const client = forwardedClient(address, headers, trustedProxies).toString();
  // RFC 7239: a quoted, bracketed IPv6 address, a bare IPv4 one
  return { headers: { forwarded: `for=${client.includes(":") ? `"[${client}]"` : client}` } };
};

/** The service's challenge, with `resource_metadata` pointed at the bridge's metadata when one is configured. */
export const relayedChallenge = (challenge: string, metadataUrl: string | undefined): string =>
  metadataUrl === undefined
    ? challenge
    : challenge.replace(/resource_metadata="[^"]*"/, `resource_metadata="${metadataUrl}"`);

export type BridgeCaller = {
  apiKey?: string;
  authorization?: string;
  /** Headers that name the caller to the service (see BridgeOptions.callerAddress). */
  addressHeaders?: Record<string, string>;
};

/** The context of one call (or one stdio session) for a caller. */
export const bridgeContext = (
  options: BridgeOptions,
  caller: BridgeCaller,
  onUnauthorized?: (error: UcpError) => void,
): BridgeContext => {
  const common = {
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  };
  return {
    shop: createUcpTransport({ ...common, agentProfileUrl: options.agentProfileUrl }),
    account: createUcpTransport(common),
    credentials: {
      ...(caller.apiKey ? { apiKey: caller.apiKey } : {}),
      ...(caller.authorization ? { authorization: caller.authorization } : {}),
    },
    signer: { privateJwk: options.key.privateJwk, kid: options.key.kid },
    ...(caller.addressHeaders ? { headers: caller.addressHeaders } : {}),
    ...(onUnauthorized ? { onUnauthorized } : {}),
  };
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });

/** Largest JSON-RPC body accepted (the service's own surfaces refuse larger ones too). */
const MAX_BODY_BYTES = 1_000_000;

/** The body as text, or null when it is over MAX_BODY_BYTES (read no further than that). */
const readBoundedText = async (request: Request): Promise<string | null> => {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
};

const rpcIdOf = (body: unknown): string | number | null => {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
};

/** One Streamable HTTP request to the bridge's MCP endpoint. */
export const handleBridgeMcp = async (request: Request, options: BridgeOptions): Promise<Response> => {
  if (request.method !== "POST") {
    // stateless: no GET stream and no session to DELETE
    return json(
      405,
      { jsonrpc: "2.0", id: null, error: { code: -32000, message: "POST JSON-RPC to this endpoint" } },
      { allow: "POST" },
    );
  }
  const text = await readBoundedText(request);
  if (text === null) {
    return json(413, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `The request body is over ${MAX_BODY_BYTES} bytes` },
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json(400, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: send JSON-RPC" },
    });
  }
  let unauthorized: UcpError | undefined;
  // the caller as this request saw it (never its X-Forwarded-For: a caller writes what it likes there)
  const address = options.callerAddress?.();
  const ctx = bridgeContext(
    options,
    {
      ...(request.headers.get("x-api-key") ? { apiKey: request.headers.get("x-api-key")! } : {}),
      ...(request.headers.get("authorization")
        ? { authorization: request.headers.get("authorization")! }
        : {}),
      ...(address ? { addressHeaders: address.headers } : {}),
    },
    (error) => {
      unauthorized ??= error;
    },
  );
  const server = createBridgeServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const headers = new Headers(request.headers);
    // Streamable HTTP wants both; a plain JSON client (curl) gets them added rather than a 406
    headers.set("accept", "application/json, text/event-stream");
    const response = await transport.handleRequest(new Request(request.url, { method: "POST", headers }), {
      parsedBody: body,
    });
    if (unauthorized) {
      const challenge = unauthorized.headers.get("www-authenticate");
      return json(
        401,
        {
          jsonrpc: "2.0",
          id: rpcIdOf(body),
          error: { code: -32001, message: unauthorized.message, data: { code: unauthorized.code } },
        },
        challenge ? { "www-authenticate": relayedChallenge(challenge, options.challengeMetadataUrl) } : {},
      );
    }
    // the SDK's answer as it is (its JSON body is already whole, so closing the server below cannot cut it short)
    response.headers.set("cache-control", "no-store");
    return response;
  } finally {
    await server.close();
    address?.release?.();
  }
};
