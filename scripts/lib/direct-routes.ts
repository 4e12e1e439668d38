import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable } from "node:stream";
import { gzipSync, type ZlibOptions } from "node:zlib";

import { readBody, requestOf } from "@/lib/core/known-body";
import { errorText, logger } from "@/lib/core/log";

// The store REST routes (carts, checkout sessions, orders, catalog, locations, order events, webhook deliveries),
// the store's, the global and the bridge's MCP endpoint, and the store's Stripe webhook (one per card payment) answered by
// calling their route handler straight from
// the HTTP server, without Next's request handling in between. Profiles of the checkout
// bench put Next's routing, request adaptation and response piping at about a tenth of the server's CPU per call,
// for work these routes do not need: each is a plain `(Request, { params }) => Response` function that already
// runs the whole prelude itself (lib/http/prelude.ts). The handler is the one Next built and serves (the same
// compiled module, loaded through the same Turbopack runtime, so one Prisma client and one set of caches), and
// anything that is not a plain call of one of these routes still goes to Next: other methods (HEAD, OPTIONS),
// targets with percent-encoding, empty segments or a trailing slash, and every other path.
// docs/decisions.md "Shopping calls skip Next's request handling" says what Next did that this must keep doing.

type RouteParams = Record<string, string>;
type Handler = (request: Request, context: { params: Promise<RouteParams> }) => Promise<Response>;
type RouteModule = {
  routeModule?: { ensureUserland?: () => Promise<void>; userland?: Record<string, unknown> };
};

export type Entry = {
  /** "/s/[store_slug]/checkout-sessions/[id]/route": the build's name of the route, and its file under .next. */
  page: string;
  /** null for a dynamic segment, whose name is in `names` at the same index */
  statics: (string | null)[];
  names: (string | null)[];
  handlers: Promise<Map<string, Handler>> | null;
};

/**
 * The routes taken directly: the UCP REST routes of a store and the global catalog, the Stripe webhook, and the
 * store's, the global and the mounted bridge's MCP endpoint (stateless JSON-RPC over POST, answered in JSON; none
 * holds a stream open: a GET is answered 405 at once, so each is a plain function too).
 */
const DIRECT =
  /^\/(?:(?:s\/\[store_slug\]\/)?(?:carts|checkout-sessions|orders|catalog|locations|order-events|webhook-deliveries|stripe\/webhook|mcp$)(?:\/|$)|bridge\/mcp$)/;
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
/** A segment the fast path takes as it is: nothing that Next would decode or normalise first (nor `.`, `..`). */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]+$/;
/**
 * Answers of a compressible type are gzipped from 1 KiB when the client takes gzip (the `compression` middleware's
 * threshold; Next, which streams the body, gzipped them at every size, a zlib stream per 300-byte error).
 */
const GZIP_MIN_BYTES = 1024;
/**
 * zlib's fastest level, as nginx compresses by default: on a 2 KiB checkout it takes about half the time of the
 * default level 6 for an answer some 3 % larger, and these answers are made on every call, not once and cached.
 */
const GZIP_LEVEL = 1;
/**
 * zlib's window sized to the answer: a window no shorter than the body loses no match, so the output is the
 * default's byte for byte, and a 3 KiB answer's compressor allocates some 144 KiB instead of 256. Measured in this
 * server under the card and crypto benches (CPU of its thread over 2,700 answers of ~3 KiB a run, two runs each):
 * 98–112 µs a gzip against 173–226 with the default window. The cost followed the memory zlib allocates (a larger
 * memLevel: 276–293 µs), not the bytes compressed (~13 µs a 3 KiB body in a loop, its memory warm). The hash table
 * and block buffer stay at zlib's default size (memLevel 8): smaller ones cost bytes on some bodies.
 */
export const gzipOptionsFor = (length: number): ZlibOptions => ({
  level: GZIP_LEVEL,
  // deflate keeps MIN_LOOKAHEAD (262) bytes beyond its window; 9 is the smallest window gzip accepts
  windowBits: Math.max(9, Math.min(15, Math.ceil(Math.log2(length + 262)))),
});
const COMPRESSIBLE = /^(?:application\/(?:[a-z0-9.+-]*\+)?json|text\/)/i;

/** The direct routes of a build's app-path-routes manifest ({ "/…/route": "/…" }), most specific first. */
export const entriesOf = (manifest: Record<string, string>): Entry[] => {
  const dynamic = (segment: string) => /^\[[^\].]+\]$/.test(segment);
  // as Next ranks routes: at the first place where they differ, a static segment before a dynamic one
  const bySpecificity = (a: Entry, b: Entry): number => {
    for (let i = 0; i < Math.min(a.statics.length, b.statics.length); i++) {
      const aStatic = a.statics[i] !== null;
      if (aStatic !== (b.statics[i] !== null)) return aStatic ? -1 : 1;
    }
    return 0;
  };
  return Object.entries(manifest)
    .filter(
      ([page, pathname]) => page.endsWith("/route") && DIRECT.test(pathname) && !pathname.includes("[..."),
    )
    .map(([page, pathname]): Entry => {
      const segments = pathname.split("/").slice(1);
      return {
        page,
        statics: segments.map((s) => (dynamic(s) ? null : s)),
        names: segments.map((s) => (dynamic(s) ? s.slice(1, -1) : null)),
        handlers: null,
      };
    })
    .sort((a, b) => a.statics.length - b.statics.length || bySpecificity(a, b));
};

/** The route a path names and its params, or null when Next must decide (not a plain call of a direct route). */
export const matchEntry = (
  entries: Entry[],
  pathname: string,
): { entry: Entry; params: RouteParams } | null => {
  const segments = pathname.split("/").slice(1);
  for (const entry of entries) {
    if (entry.statics.length !== segments.length) continue;
    const params: RouteParams = {};
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const segment = segments[i]!;
      const fixed = entry.statics[i];
      if (fixed !== null && fixed !== undefined) ok = fixed === segment;
      else if (PLAIN_SEGMENT.test(segment) && segment !== "." && segment !== "..")
        params[entry.names[i]!] = segment;
      else ok = false;
    }
    if (ok) return { entry, params };
  }
  return null;
};

/**
 * The web Request Next would have built: the URL from the host and port this server listens on (not the Host
 * header), and the X-Forwarded-* headers Next adds when a client sent none.
 */
export const webRequestOf = (
  req: IncomingMessage,
  origin: { host: string; port: number },
  body: Buffer | null = null,
): Request => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const forwardedProto = req.headers["x-forwarded-proto"];
  const encrypted = "encrypted" in req.socket && req.socket.encrypted === true;
  const protocol =
    encrypted || (typeof forwardedProto === "string" && forwardedProto.includes("https")) ? "https" : "http";
  const hostname = origin.host.includes(":") ? `[${origin.host}]` : origin.host;
  if (!headers.has("x-forwarded-host")) headers.set("x-forwarded-host", req.headers.host ?? origin.host);
  if (!headers.has("x-forwarded-port")) headers.set("x-forwarded-port", String(origin.port));
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", encrypted ? "https" : "http");
  if (!headers.has("x-forwarded-for") && req.socket.remoteAddress)
    headers.set("x-forwarded-for", req.socket.remoteAddress);
  const url = `${protocol}://${hostname}:${origin.port}${req.url}`;
  if (body !== null) {
    const bytes = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    return requestOf(url, { method: req.method, headers }, bytes);
  }
  const bodyless = req.method === "GET" || req.method === "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    ...(bodyless ? {} : { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" }),
  } as RequestInit);
};

/**
 * A body this small whose length is declared is read from the socket before the handler runs, and handed to it
 * whole (lib/core/known-body.ts); a bigger or chunked one is streamed to the handler, whose body parser refuses
 * what exceeds its cap without buffering the excess.
 */
const PREREAD_MAX_BYTES = 64 * 1024;

/**
 * The whole body of a request that declares a small length; null when it goes to the handler as a stream
 * instead; "gone" when the client left before sending all of it.
 */
export const smallBodyOf = (req: IncomingMessage): Promise<Buffer | "gone"> | null => {
  if (req.method === "GET" || req.method === "HEAD") return null;
  const length = req.headers["content-length"];
  if (length === undefined || req.headers["transfer-encoding"] !== undefined) return null;
  const declared = Number(length);
  if (!Number.isSafeInteger(declared) || declared < 0 || declared > PREREAD_MAX_BYTES) return null;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", () => resolve("gone"));
    req.once("close", () => {
      if (!req.complete) resolve("gone");
    });
  });
};

const acceptsGzip = (req: IncomingMessage): boolean => {
  const accept = req.headers["accept-encoding"];
  if (typeof accept !== "string") return false;
  return accept.split(",").some((part) => {
    const [coding, ...options] = part.trim().split(";");
    if (coding?.trim().toLowerCase() !== "gzip" && coding?.trim() !== "*") return false;
    const q = options.map((o) => /^\s*q=([0-9.]+)\s*$/.exec(o)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  });
};

/** Writes the handler's answer as Next does for a route: its headers, gzip from 1 KiB when the client takes it. */
const writeResponse = async (
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> => {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  // the bytes the handler built the answer from when it says which (lib/core/known-body.ts), else its stream's
  const bytes = response.body === null ? null : await readBody(response);
  let body = bytes === null ? Buffer.alloc(0) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = response.headers.get("content-type") ?? "";
  if (COMPRESSIBLE.test(type) && body.length > 0) {
    const vary = res.getHeader("vary");
    if (typeof vary !== "string" || !/accept-encoding|\*/i.test(vary))
      res.setHeader(
        "vary",
        typeof vary === "string" && vary ? `${vary}, Accept-Encoding` : "Accept-Encoding",
      );
    const noTransform = /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(response.headers.get("cache-control") ?? "");
    if (
      body.length >= GZIP_MIN_BYTES &&
      !noTransform &&
      !response.headers.has("content-encoding") &&
      acceptsGzip(req)
    ) {
      body = gzipSync(body, gzipOptionsFor(body.length));
      res.setHeader("content-encoding", "gzip");
    }
  }
  res.setHeader("content-length", body.length);
  res.end(body);
};

/**
 * The direct path: returns a function that answers a request of one of these routes and says true, or says false
 * (leaving the request untouched) for Next to handle. Call it after Next has prepared (its build and runtime
 * are loaded by then).
 */
export const directRoutes = (
  root: string,
  origin: { host: string; port: number },
): ((req: IncomingMessage, res: ServerResponse) => Promise<boolean> | false) => {
  const entries = ((): Entry[] => {
    try {
      const manifest = readFileSync(path.join(root, ".next/app-path-routes-manifest.json"), "utf8");
      return entriesOf(JSON.parse(manifest) as Record<string, string>);
    } catch (error) {
      // a build without this manifest (another Next version): every route goes through Next
      logger().warn(`direct routes: none, every route goes through Next (${errorText(error)})`);
      return [];
    }
  })();
  const load = createRequire(path.join(root, "package.json"));
  const handlersOf = (entry: Entry): Promise<Map<string, Handler>> =>
    (entry.handlers ??= (async () => {
      try {
        const mod = load(path.join(root, ".next/server/app", `${entry.page}.js`)) as RouteModule;
        // Next loads the route's own module lazily; this waits for it as Next does before its first call
        await mod.routeModule?.ensureUserland?.();
        const userland = mod.routeModule?.userland ?? {};
        const handlers = new Map(
          [...METHODS].flatMap((m) =>
            typeof userland[m] === "function" ? [[m, userland[m] as Handler]] : [],
          ),
        );
        if (handlers.size === 0) throw new Error("no route handlers in the compiled module");
        return handlers;
      } catch (error) {
        // a build whose route modules have another shape: Next answers these routes, as it does the others
        logger().warn(`direct routes: ${entry.page} goes through Next (${errorText(error)})`);
        return new Map<string, Handler>();
      }
    })());
  return (req, res) => {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    if (!METHODS.has(method) || !url.startsWith("/")) return false;
    const query = url.indexOf("?");
    const match = matchEntry(entries, query === -1 ? url : url.slice(0, query));
    if (!match) return false;
    return handlersOf(match.entry).then(async (handlers) => {
      const handler = handlers.get(method);
      if (!handler) return false;
      const small = smallBodyOf(req);
      const body = small === null ? null : await small;
      if (body === "gone") {
        // nobody to answer: the request never arrived whole
        res.destroy();
        return true;
      }
      const response = await handler(webRequestOf(req, origin, body), {
        params: Promise.resolve(match.params),
      });
      await writeResponse(req, res, response);
      return true;
    });
  };
};
