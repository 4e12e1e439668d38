import { randomUUID } from "node:crypto";
import path from "node:path";

import { routeFiles } from "../../scripts/lib/route-files";
import { profileServer } from "./agent-profile-server";

// Calls the app's route handlers in-process, the way Next's router would: every app/**/route.ts is found on disk
// and matched with Next's precedence (static segment > [param] > [...catchAll]; (groups) ignored). Integration
// tests thus run against the real handlers and the same database the factories write to.

const APP_DIR = path.join(import.meta.dirname, "../../app");
export const TEST_BASE_URL = "http://127.0.0.1:3000";

const findRoute = routeFiles(APP_DIR);

export type CallOptions = { headers?: Record<string, string>; body?: unknown; rawBody?: string | Uint8Array };

/** Dispatches one request to the matching route handler. Unmatched methods get 405 as in Next. */
export const callApp = async (
  method: string,
  pathname: string,
  options: CallOptions = {},
): Promise<Response> => {
  const url = new URL(pathname, TEST_BASE_URL);
  const found = await findRoute(method, url.pathname);
  if (found) {
    const { handler, params } = found;
    if (!handler) return new Response(null, { status: 405 });
    const headers = new Headers(options.headers);
    let body: string | Uint8Array | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    const init = { method, headers, body: typeof body === "string" ? body : body && new Uint8Array(body) };
    return handler(new Request(url, init as RequestInit), { params: Promise.resolve(params) });
  }
  return new Response(null, { status: 404 });
};

/** A reachable agent profile on the local profile server (the service fetches it to negotiate the version). */
export const AGENT_PROFILE = (await profileServer()).url("ok");

/** Headers every shopping call carries (seed §4): a fresh Request-Id and the agent profile. */
export const envelopeHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  "request-id": randomUUID(),
  "ucp-agent": `profile="${AGENT_PROFILE}"`,
  ...extra,
});

export type JsonResponse<T = Record<string, unknown>> = {
  status: number;
  headers: Headers;
  body: T;
  text: string;
};

export const readJson = async <T = Record<string, unknown>>(response: Response): Promise<JsonResponse<T>> => {
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as T,
    text,
  };
};

/** REST call with the envelope headers (override or drop any with `headers`, value "" removes). */
export const rest = async <T = Record<string, unknown>>(
  method: string,
  pathname: string,
  { headers = {}, body, rawBody }: CallOptions = {},
): Promise<JsonResponse<T>> => {
  const merged = Object.fromEntries(
    Object.entries({ ...envelopeHeaders(), ...headers }).filter(([, v]) => v !== ""),
  );
  return readJson<T>(await callApp(method, pathname, { headers: merged, body, rawBody }));
};

let rpcId = 0;

export type McpCall = {
  headers?: Record<string, string>;
  meta?: Record<string, unknown> | null;
  idempotencyKey?: string;
};

/** MCP tools/call over the app's MCP route (JSON response mode). */
export const mcpCall = async <T = Record<string, unknown>>(
  endpoint: string,
  tool: string,
  args: Record<string, unknown>,
  { headers = {}, meta, idempotencyKey }: McpCall = {},
): Promise<JsonResponse<T>> => {
  const defaultMeta = {
    "ucp-agent": { profile: AGENT_PROFILE },
    ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
  };
  const argsWithMeta = meta === null ? args : { meta: meta ?? defaultMeta, ...args };
  // A correct client names the same profile in the UCP-Agent header and in meta (the service refuses two)
  const metaAgent = (meta ?? defaultMeta)?.["ucp-agent"] as { profile?: unknown } | undefined;
  const sameAgent =
    typeof metaAgent?.profile === "string" && metaAgent.profile !== ""
      ? { "ucp-agent": `profile="${metaAgent.profile}"` }
      : {};
  const merged = Object.fromEntries(
    Object.entries({
      ...envelopeHeaders(),
      accept: "application/json, text/event-stream",
      ...sameAgent,
      ...headers,
    }).filter(([, v]) => v !== ""),
  );
  return readJson<T>(
    await callApp("POST", endpoint, {
      headers: merged,
      body: {
        jsonrpc: "2.0",
        id: ++rpcId,
        method: "tools/call",
        params: { name: tool, arguments: argsWithMeta },
      },
    }),
  );
};
