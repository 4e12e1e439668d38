import { randomUUID } from "node:crypto";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { AGENT_PROFILE, callApp, TEST_BASE_URL } from "./app-client";

// The official MCP SDK client (Streamable HTTP) talking to the app's MCP routes in-process: its fetch is routed
// to callApp, so the client does the real initialize handshake and tools/call exchange against the real route
// handlers. Every HTTP request carries a fresh Request-Id and the UCP-Agent header, as seed §4 requires.

export type McpClientOptions = {
  /** Extra HTTP headers on every request (X-API-Key, Authorization, …); "" removes a default header. */
  headers?: Record<string, string>;
};

const toHeaderRecord = (headers: HeadersInit | undefined): Record<string, string> =>
  Object.fromEntries(new Headers(headers).entries());

/**
 * A correct client names one agent per request: the tools/call's meta profile goes in the UCP-Agent header too
 * (the service refuses a header and a meta that differ).
 */
const agentOfToolCall = (rawBody: string | undefined): Record<string, string> => {
  try {
    const message = JSON.parse(rawBody ?? "null") as {
      params?: { arguments?: { meta?: { "ucp-agent"?: { profile?: unknown } } } };
    } | null;
    const profile = message?.params?.arguments?.meta?.["ucp-agent"]?.profile;
    return typeof profile === "string" && profile !== "" ? { "ucp-agent": `profile="${profile}"` } : {};
  } catch {
    return {};
  }
};

/** An SDK client connected to `endpoint` (`/mcp` or `/s/<slug>/mcp`). Close it with `client.close()`. */
export const connectMcpClient = async (endpoint: string, { headers = {} }: McpClientOptions = {}) => {
  const fetchInProcess = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const target = new URL(url);
    const rawBody = typeof init?.body === "string" ? init.body : undefined;
    const merged = Object.fromEntries(
      Object.entries({
        "request-id": randomUUID(),
        "ucp-agent": `profile="${AGENT_PROFILE}"`,
        ...agentOfToolCall(rawBody),
        ...toHeaderRecord(init?.headers),
        ...headers,
      }).filter(([, v]) => v !== ""),
    );
    return callApp(init?.method ?? "GET", `${target.pathname}${target.search}`, { headers: merged, rawBody });
  };
  const transport = new StreamableHTTPClientTransport(new URL(endpoint, TEST_BASE_URL), {
    fetch: fetchInProcess,
  });
  const client = new Client({ name: "acs-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
};

export type McpClient = Awaited<ReturnType<typeof connectMcpClient>>;

/** `meta` for a tools/call: the agent profile, plus an idempotency key on state-changing tools. */
export const toolMeta = (idempotencyKey?: string): Record<string, unknown> => ({
  "ucp-agent": { profile: AGENT_PROFILE },
  ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
});
