import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { handleBridgeMcp, type BridgeOptions } from "@/lib/bridge/http";

import { callApp, TEST_BASE_URL } from "../../helpers/app-client";

// The bridge as an outside agent's MCP server: the official SDK client speaks Streamable HTTP to the bridge's
// handler, and the bridge's own fetch reaches the service's real route handlers in-process (as the agent kit's
// purchase test does). The bridge never touches the database: everything it learns comes over that fetch.

export const BRIDGE_URL = "http://bridge.test";

export type SeenRequest = { method: string; path: string; headers: Record<string, string>; body?: string };

/** The service over HTTP, in-process; `seen` records every request the bridge sends (headers included). */
export const serviceFetch =
  (seen: SeenRequest[] = []) =>
  async (url: string, init: RequestInit) => {
    const target = new URL(url);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = typeof init.body === "string" ? init.body : undefined;
    seen.push({ method: init.method ?? "GET", path: target.pathname, headers, ...(body ? { body } : {}) });
    return callApp(init.method ?? "GET", `${target.pathname}${target.search}`, {
      headers,
      ...(body !== undefined ? { rawBody: body } : {}),
    });
  };

/** The official SDK client connected to a bridge with `options`, sending `headers` (X-API-Key, Authorization). */
export const connectBridge = async (options: BridgeOptions, headers: Record<string, string> = {}) => {
  const transport = new StreamableHTTPClientTransport(new URL(`${BRIDGE_URL}/mcp`), {
    fetch: async (url, init) => {
      const merged = new Headers(init?.headers);
      for (const [k, v] of Object.entries(headers)) merged.set(k, v);
      return handleBridgeMcp(new Request(url, { ...init, headers: merged }), options);
    },
  });
  const client = new Client({ name: "bridge-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
};

/** The JSON a tool result carries: structuredContent, or the error object of an isError result. */
export const resultJson = (result: unknown): Record<string, unknown> => {
  const r = result as { structuredContent?: Record<string, unknown>; content?: { text?: string }[] };
  return r.structuredContent ?? (JSON.parse(r.content?.[0]?.text ?? "{}") as Record<string, unknown>);
};

export const toolError = (result: unknown) => {
  const r = result as { isError?: boolean };
  const body = resultJson(result) as { error?: { code: string; message: string; path?: string } };
  if (r.isError !== true || !body.error)
    throw new Error(`expected a tool error, got ${JSON.stringify(result)}`);
  return body.error;
};

export { TEST_BASE_URL };
