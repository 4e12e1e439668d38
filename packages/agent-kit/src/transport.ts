import { randomUUID } from "node:crypto";

import { UcpError } from "./client.js";
import { signRequest, type RequestSigner } from "./http-signature.js";
import { newIdempotencyKey, withRetries, type RetryPolicy } from "./retry.js";

// One transport for every public surface of the service, REST and raw MCP alike: what the typed store client
// (client.ts) does per resource, here for any path or tool, so a client that speaks for other callers (an MCP
// bridge, a proxy) reaches the global catalog (`/catalog/*`, `/mcp`), any store's MCP (`/s/<store>/mcp`: carts,
// checkouts, locations, orders) and the buyer account MCP the same way. Each call carries a fresh Request-Id,
// UCP-Agent naming the agent's profile (MCP: also `meta["ucp-agent"]`), the credential it is given, and on a
// state-changing call one idempotency key (REST header or MCP `meta["idempotency-key"]`) kept across every retry
// of that call (retry.ts): a retry after a lost answer replays the first outcome instead of doing the work twice.
// A non-2xx answer, and a JSON-RPC error, throw UcpError (with the answer's headers, so a 401's WWW-Authenticate
// can be relayed unchanged); a business outcome (HTTP 200, `ucp.status: "error"`) is returned as is.

/** The credentials of one call. Seed §5 rule 1: a key wins over a bearer, so buyer-bound calls send the bearer only. */
export type Credentials = {
  /** A platform API key (X-API-Key). */
  apiKey?: string;
  /** The full Authorization header value (`Bearer …`) of a buyer. */
  authorization?: string;
};

export type UcpTransportOptions = {
  /** The service's base URL, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** The URL of the agent's UCP profile; omitted on the buyer account surface, which needs none (seed §5 rule 9). */
  agentProfileUrl?: string;
  /** Sign every request (RFC 9421) with this key, published in the profile's signing_keys. */
  requestSigner?: RequestSigner;
  retry?: RetryPolicy;
  /**
   * How long one attempt may take before it is abandoned (default 30 s). A slow service then counts as no answer:
   * retried with the same idempotency key (retry.ts), and after the last attempt the call fails instead of hanging.
   */
  timeoutMs?: number;
  /** Another fetch (a proxy, a test's in-process router). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
};

export type TransportCallOptions = {
  credentials?: Credentials;
  /** Reuse a key to make this call a retry of an earlier one; a fresh key by default on state-changing calls. */
  idempotencyKey?: string;
  /** Extra headers (e.g. `Forwarded`). */
  headers?: Record<string, string>;
};

/** A tool result as the service answers it: the UCP body in `structuredContent`. */
export type ToolAnswer = {
  structuredContent: Record<string, unknown>;
  isError: boolean;
  requestId: string | null;
};

type JsonRpcAnswer = {
  result?: { structuredContent?: Record<string, unknown>; content?: { text?: string }[]; isError?: boolean };
  error?: { code?: number; message?: string; data?: { code?: string; content?: string; path?: string } };
};

/** A JSON-RPC error body in the form UcpError reads (UCP's top-level code/content plus messages[]). */
const rpcErrorBody = (error: NonNullable<JsonRpcAnswer["error"]>) => {
  const code = error.data?.code ?? `jsonrpc_${error.code ?? "error"}`;
  const content = error.data?.content ?? error.message ?? "";
  return {
    code,
    content,
    messages: [{ type: "error", code, content, ...(error.data?.path ? { path: error.data.path } : {}) }],
    jsonrpc_error: error,
  };
};

export const createUcpTransport = (options: UcpTransportOptions) => {
  const base = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));

  const exchange = async (
    method: string,
    path: string,
    text: string | null,
    extra: Record<string, string>,
    call: TransportCallOptions,
  ): Promise<Response> => {
    const url = `${base}${path}`;
    return withRetries(async () => {
      let headers = new Headers({
        accept: "application/json",
        // seed §4: unique per request, retries included (the idempotency key is what ties a retry to its call)
        "request-id": randomUUID(),
        ...(options.agentProfileUrl ? { "ucp-agent": `profile="${options.agentProfileUrl}"` } : {}),
        ...(call.credentials?.apiKey ? { "x-api-key": call.credentials.apiKey } : {}),
        ...(call.credentials?.authorization ? { authorization: call.credentials.authorization } : {}),
        ...(text !== null ? { "content-type": "application/json" } : {}),
        ...call.headers,
        ...extra,
      });
      if (options.requestSigner) {
        headers = await signRequest({ method, url, headers, body: text }, options.requestSigner);
      }
      return send(url, {
        method,
        headers,
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        ...(text !== null ? { body: text } : {}),
      });
    }, options.retry);
  };

  /** A REST call (`path` from the base URL); `mutates` adds the Idempotency-Key. */
  const rest = async <T>(
    method: string,
    path: string,
    body: unknown,
    { mutates = method !== "GET", ...call }: TransportCallOptions & { mutates?: boolean } = {},
  ): Promise<T> => {
    const key = mutates ? (call.idempotencyKey ?? newIdempotencyKey()) : undefined;
    const response = await exchange(
      method,
      path,
      body === undefined ? null : JSON.stringify(body),
      key ? { "idempotency-key": key } : {},
      call,
    );
    const answer: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      throw new UcpError(response.status, answer, response.headers.get("request-id"), response.headers);
    }
    return answer as T;
  };

  /**
   * A raw MCP `tools/call` at `path` (`/mcp`, `/s/<store>/mcp`, `/account/mcp`): the arguments with `meta` added
   * (the agent profile; on a state-changing tool, the idempotency key).
   */
  const tool = async (
    path: string,
    name: string,
    args: Record<string, unknown>,
    { mutates = false, ...call }: TransportCallOptions & { mutates?: boolean } = {},
  ): Promise<ToolAnswer> => {
    const key = mutates ? (call.idempotencyKey ?? newIdempotencyKey()) : undefined;
    const meta = {
      ...(options.agentProfileUrl ? { "ucp-agent": { profile: options.agentProfileUrl } } : {}),
      ...(key ? { "idempotency-key": key } : {}),
    };
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: randomUUID(),
      method: "tools/call",
      params: { name, arguments: { ...args, ...(Object.keys(meta).length > 0 ? { meta } : {}) } },
    });
    const response = await exchange(
      "POST",
      path,
      body,
      { accept: "application/json, text/event-stream" },
      call,
    );
    const requestId = response.headers.get("request-id");
    const answer = (await response.json().catch(() => null)) as JsonRpcAnswer | null;
    if (answer?.error) {
      throw new UcpError(
        response.ok ? 400 : response.status,
        rpcErrorBody(answer.error),
        requestId,
        response.headers,
      );
    }
    if (!response.ok || !answer?.result) {
      throw new UcpError(response.status, answer, requestId, response.headers);
    }
    const { result } = answer;
    let structured = result.structuredContent;
    if (!structured) {
      // a tool error with text only (e.g. the SDK's own input validation): keep the text as the content
      const text = result.content?.map((c) => c.text ?? "").join("\n") ?? "";
      structured = {
        ucp: { status: "error" },
        messages: [{ type: "error", code: "tool_error", content: text }],
      };
    }
    return { structuredContent: structured, isError: result.isError === true, requestId };
  };

  return { baseUrl: base, rest, tool };
};

export type UcpTransport = ReturnType<typeof createUcpTransport>;
