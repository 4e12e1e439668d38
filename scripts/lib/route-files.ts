import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// The app's route handlers (app/**/route.ts) found on disk and matched as Next's router does (static segment >
// [param] > [...catchAll]; (groups) ignored), for callers that run them without a Next build: the conformance
// store's server (scripts/conformance-serve.ts), which serves only route handlers (profiles and the REST API),
// never a page, and the integration tests' in-process client (e2e/helpers/app-client.ts). Each handler is a plain
// `(Request, { params }) => Response` function that runs the whole prelude itself.

export type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>;
type Segment = { kind: "static" | "param" | "catchAll"; value: string };
type RouteFile = { file: string; segments: Segment[] };

const find = (dir: string, prefix: string[] = []): RouteFile[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return find(full, /^\(.*\)$/.test(name) ? prefix : [...prefix, name]);
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
const compare = (a: RouteFile, b: RouteFile): number => {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const x = a.segments[i];
    const y = b.segments[i];
    if (!x || !y) return x ? 1 : -1;
    if (RANK[x.kind] !== RANK[y.kind]) return RANK[x.kind] - RANK[y.kind];
  }
  return 0;
};

const matchRoute = (route: RouteFile, parts: string[]): Record<string, string | string[]> | null => {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const segment = route.segments[i]!;
    if (segment.kind === "catchAll") {
      const rest = parts.slice(i);
      if (rest.length === 0) return null;
      params[segment.value] = rest;
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (segment.kind === "static" && segment.value !== part) return null;
    if (segment.kind === "param") params[segment.value] = part;
  }
  return route.segments.length === parts.length ? params : null;
};

/** Next decodes each segment for the params; one that does not decode is left raw (the prelude refuses it). */
const decode = (part: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/**
 * The route file matching `pathname`: its handler of `method` (null when the route has none: Next answers 405)
 * and its params; null when no route file matches.
 */
export const routeFiles = (appDir: string) => {
  const routes = find(appDir).sort(compare);
  return async (
    method: string,
    pathname: string,
  ): Promise<{ handler: RouteHandler | null; params: Record<string, string | string[]> } | null> => {
    const parts = pathname.split("/").filter(Boolean).map(decode);
    for (const route of routes) {
      const params = matchRoute(route, parts);
      if (!params) continue;
      const routeModule = (await import(pathToFileURL(route.file).href)) as Partial<
        Record<string, RouteHandler>
      >;
      return { handler: routeModule[method] ?? null, params };
    }
    return null;
  };
};
