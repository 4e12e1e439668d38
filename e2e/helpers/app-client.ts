import { randomUUID } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { profileServer } from "./agent-profile-server";

// Calls the app's route handlers in-process, the way Next's router would: every app/**/route.ts is found on disk
// and matched with Next's precedence (static segment > [param] > [...catchAll]; (groups) ignored). Integration
// tests thus run against the real handlers and the same database the factories write to.

type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>;
type RouteModule = Partial<Record<string, Handler>>;
type Segment = { kind: "static" | "param" | "catchAll"; value: string };
type Route = { file: string; segments: Segment[] };

const APP_DIR = path.join(import.meta.dirname, "../../app");
export const TEST_BASE_URL = "http://127.0.0.1:3000";

const findRoutes = (dir: string, prefix: string[] = []): Route[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      const next = /^\(.*\)$/.test(name) ? prefix : [...prefix, name];
      return findRoutes(full, next);
    }
    if (name !== "route.ts") return [];
    const segments = prefix.map((s): Segment => {
      const catchAll = /^\[\.\.\.(.+)\]$/.exec(s);
      if (catchAll?.[1]) return { kind: "catchAll", value: catchAll[1] };
      const param = /^\[(.+)\]$/.exec(s);
      if (param?.[1]) return { kind: "param", value: param[1] };
      return { kind: "static", value: s };
    });
    return [{ file: full, segments }];
  });

const RANK = { static: 0, param: 1, catchAll: 2 } as const;
const compareRoutes = (a: Route, b: Route): number => {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const x = a.segments[i];
    const y = b.segments[i];
    if (!x || !y) return x ? 1 : -1;
    if (RANK[x.kind] !== RANK[y.kind]) return RANK[x.kind] - RANK[y.kind];
  }
  return 0;
};

const ROUTES = findRoutes(APP_DIR).sort(compareRoutes);

const match = (route: Route, parts: string[]): Record<string, string | string[]> | null => {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const seg = route.segments[i]!;
    if (seg.kind === "catchAll") {
      const rest = parts.slice(i);
      if (rest.length === 0) return null;
      params[seg.value] = rest;
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (seg.kind === "static" && seg.value !== part) return null;
    if (seg.kind === "param") params[seg.value] = part;
  }
  return route.segments.length === parts.length ? params : null;
};

export type CallOptions = { headers?: Record<string, string>; body?: unknown; rawBody?: string | Uint8Array };

/** Next decodes each segment for the params; a segment that does not decode is left raw (the prelude refuses it). */
const decodeSegment = (part: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/** Dispatches one request to the matching route handler. Unmatched methods get 405 as in Next. */
export const callApp = async (
  method: string,
  pathname: string,
  options: CallOptions = {},
): Promise<Response> => {
  const url = new URL(pathname, TEST_BASE_URL);
  const parts = url.pathname.split("/").filter(Boolean).map(decodeSegment);
  for (const route of ROUTES) {
    const params = match(route, parts);
    if (!params) continue;
    const mod = (await import(pathToFileURL(route.file).href)) as RouteModule;
    const handler = mod[method];
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
