import "server-only";

import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";

import ipaddr from "ipaddr.js";

// The one door for outbound fetches of URLs that callers give us — agent profiles, CIMD documents and webhook
// targets (DECISIONS.md B10). The caller states whether private targets are allowed (lib/outbound/policy.ts
// decides: never in production unless the operator allows them). Without that permission: https only, and only
// global-unicast addresses that are not this host's own. The name is resolved once, inside the connection's own
// lookup, and the socket connects to the address that was checked — so a name cannot resolve to a public address
// for the check and a private one for the connect (DNS rebinding). Sockets are kept alive only within the pool of
// the policy that checked them (poolFor). A literal IP in any spelling (decimal, octal, hex, short, IPv6,
// IPv4-mapped) is normalized by the URL parser and checked before any socket exists. No redirects unless the
// caller allows a few (`maxRedirects`, each hop re-validated from scratch); a byte cap read as a stream; one
// timeout per hop (a request sent again on a new socket shares it). Failures carry a class and a sentence of ours, never the socket's own text
// (ECONNRESET, "socket hang up", resolver messages): those tell an open port from a closed one.

export type OutboundFailure =
  | "scheme"
  | "private_address"
  | "refused"
  | "timeout"
  | "tls"
  | "redirect"
  | "too_large"
  | "http_status"
  | "not_json";

export class OutboundError extends Error {
  readonly reason: OutboundFailure;
  constructor(reason: OutboundFailure, message: string) {
    super(message);
    this.name = "OutboundError";
    this.reason = reason;
  }
}

/** A name's addresses, as node:dns `lookup(name, { all: true })` gives them. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export type GuardedFetchOptions = {
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  headers?: Record<string, string>;
  /** GET by default; webhooks POST. */
  method?: "GET" | "POST";
  /** Request body bytes (POST), sent exactly as given. */
  body?: string | Uint8Array;
  /** Past maxBytes: fail (default) or keep the first maxBytes and stop reading (delivery logs keep a snippet). */
  overflow?: "fail" | "truncate";
  /** Redirects to follow (default 0: any 3xx is refused). Each hop goes through every check again. */
  maxRedirects?: number;
  /** Name resolution (default: the system resolver). Tests give names their own addresses. */
  resolve?: Resolve;
};

export type GuardedResponse = {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The URL that answered (differs from the requested one after followed redirects). */
  url: string;
};

/**
 * Global unicast only: loopback, private (RFC 1918), link-local, CGNAT, multicast, unspecified, reserved, ULA,
 * and IPv6 forms that embed an IPv4 address (mapped ::ffff:0:0/96, compatible ::/96, NAT64, 6to4, Teredo) are
 * refused — the embedded form would reach the same IPv4 host.
 */
export const isPublicAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 → IPv4
  if (
    parsed.kind() === "ipv6" &&
    parsed
      .toByteArray()
      .slice(0, 12)
      .every((b) => b === 0)
  )
    return false;
  return parsed.range() === "unicast";
};

/** This host's own addresses (every interface): a public IP of ours still reaches services bound to it. */
const ownAddresses = (): Set<string> => {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) own.add(ipaddr.process(entry.address.split("%")[0]!).toString());
  }
  return own;
};

/** May a connection go to `address`? Public and not ours, unless private targets are allowed. */
export const isAllowedTarget = (address: string, allowPrivate: boolean): boolean => {
  if (allowPrivate) return true;
  if (!isPublicAddress(address)) return false;
  return !ownAddresses().has(ipaddr.process(address).toString());
};

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

const guardedLookup =
  (allowPrivate: boolean, resolve: Resolve): LookupFunction =>
  (hostname, options, callback) => {
    const refuse = (error: OutboundError) => callback(error as unknown as NodeJS.ErrnoException, "", 4);
    resolve(hostname).then(
      (found) => {
        const asked: unknown = options.family;
        const family = asked === 4 || asked === "IPv4" ? 4 : asked === 6 || asked === "IPv6" ? 6 : 0;
        const addresses = found.filter((a) => family === 0 || a.family === family);
        if (addresses.length === 0) {
          refuse(new OutboundError("refused", `${hostname} could not be reached`));
          return;
        }
        if (addresses.some((a) => !isAllowedTarget(a.address, allowPrivate))) {
          refuse(new OutboundError("private_address", `${hostname} is not a public address`));
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      () => refuse(new OutboundError("refused", `${hostname} could not be reached`)),
    );
  };

// Connections are kept alive between fetches, in one pool per policy (private targets allowed or not) and per
// resolver, never shared across them. Every socket of a pool was opened through that pool's guarded lookup, so it
// is connected to an address that was checked under that same policy; reusing it sends the next request to that
// same checked address (a name that resolves elsewhere by then changes nothing: the socket does not follow it),
// while a new socket is checked again. A pool never hands a socket to a request of another policy, whose check
// could differ. Idle sockets close after FREE_SOCKET_MS (or sooner when the server's Keep-Alive says so).
const FREE_SOCKET_MS = 4_000;
type Pools = { http: HttpAgent; https: HttpsAgent; lookup: LookupFunction };
const poolsByResolver = new WeakMap<Resolve, Map<boolean, Pools>>();
/** The connection pools of a policy and a resolver, with the lookup every socket of theirs is opened through. */
export const poolFor = (resolve: Resolve, allowPrivate: boolean): Pools => {
  let byPolicy = poolsByResolver.get(resolve);
  if (!byPolicy) poolsByResolver.set(resolve, (byPolicy = new Map()));
  let pools = byPolicy.get(allowPrivate);
  if (!pools) {
    const lookup = guardedLookup(allowPrivate, resolve);
    const options = { keepAlive: true, maxFreeSockets: 4, timeout: FREE_SOCKET_MS, lookup };
    pools = { http: new HttpAgent(options), https: new HttpsAgent(options), lookup };
    byPolicy.set(allowPrivate, pools);
  }
  return pools;
};

const FAILURE_TEXT: Record<"refused" | "timeout" | "tls", string> = {
  refused: "could not be reached",
  timeout: "did not answer in time",
  tls: "failed the TLS handshake",
};

/** The class of a socket-level failure; its own text is never kept. */
const classify = (error: Error & { code?: string }): keyof typeof FAILURE_TEXT => {
  const code = error.code ?? "";
  if (/^(ERR_TLS_|ERR_SSL_)|CERT|^EPROTO$|^UNABLE_TO_|^HOSTNAME_MISMATCH$/.test(code)) return "tls";
  if (code === "ETIMEDOUT" || code === "ESOCKETTIMEDOUT") return "timeout";
  return "refused";
};

/**
 * Requests `url` under the guard (GET unless `method` says otherwise). Any HTTP status is returned (callers
 * judge it), except 3xx, which is refused — or followed, at most `maxRedirects` times, each hop re-checked as a
 * fresh request.
 * @throws OutboundError
 */
export const guardedFetch = async (url: string, options: GuardedFetchOptions): Promise<GuardedResponse> => {
  let current = url;
  for (let hop = 0; ; hop++) {
    const mayFollow = hop < (options.maxRedirects ?? 0);
    const response = await fetchOnce(current, options, mayFollow);
    if (response.status < 300 || response.status >= 400) return response;
    const location = response.headers.location;
    if (!location) {
      throw new OutboundError("redirect", `${current} answered ${response.status} without a Location`);
    }
    try {
      current = new URL(location, current).href;
    } catch {
      throw new OutboundError("redirect", `${current} answered ${response.status} with an invalid Location`);
    }
  }
};

const fetchOnce = (
  url: string,
  options: GuardedFetchOptions,
  mayFollow: boolean,
): Promise<GuardedResponse> => {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError("scheme", "Not a valid URL"));
  }
  const isHttps = target.protocol === "https:";
  if (!isHttps && !(options.allowPrivate && target.protocol === "http:")) {
    return Promise.reject(
      new OutboundError("scheme", `Only https URLs may be fetched (got ${target.protocol})`),
    );
  }
  // A literal IP skips DNS, so check it here as well.
  const literal = target.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(literal) && !isAllowedTarget(literal, options.allowPrivate)) {
    return Promise.reject(new OutboundError("private_address", `${target.hostname} is not a public address`));
  }

  const pools = poolFor(options.resolve ?? systemResolve, options.allowPrivate);
  const deadlineAt = performance.now() + options.timeoutMs;
  /**
   * One request. A kept-alive socket the server closed just as it was reused fails before any answer: the request
   * is sent once more on a new socket (`mayRetry`), within the same deadline; webhooks are at-least-once anyway.
   */
  const send = (mayRetry: boolean): Promise<GuardedResponse> =>
    new Promise<GuardedResponse>((resolve, reject) => {
      // Settles exactly once; every failure path destroys the request without an error object, so no stream is
      // left to emit an unhandled 'error' after we have answered.
      let settled = false;
      let answered = false;
      const fail = (error: OutboundError) => {
        if (settled) return;
        settled = true;
        reject(error);
        req.destroy();
      };
      const req = (isHttps ? httpsRequest : httpRequest)(
        target,
        {
          method: options.method ?? "GET",
          headers: { accept: "application/json", "user-agent": "agent-commerce-service", ...options.headers },
          // the pool of this policy (see poolFor): its sockets were all checked by this same lookup
          agent: isHttps ? pools.https : pools.http,
          lookup: pools.lookup,
        },
        (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400) {
            if (!mayFollow) {
              const why = options.maxRedirects
                ? `more than ${options.maxRedirects} redirects`
                : "redirects are not followed";
              fail(new OutboundError("redirect", `${url} answered ${status}: ${why}`));
              return;
            }
            settled = true;
            resolve({ status, headers: res.headers, body: "", url });
            req.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > options.maxBytes) {
              if (options.overflow !== "truncate") {
                fail(new OutboundError("too_large", `${url} is larger than ${options.maxBytes} bytes`));
                return;
              }
              chunks.push(chunk.subarray(0, chunk.length - (size - options.maxBytes)));
              settled = true;
              resolve({ status, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), url });
              req.destroy();
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () => {
            if (settled) return;
            settled = true;
            resolve({ status, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), url });
          });
          res.on("error", () => fail(new OutboundError("refused", `${url}: the response was cut off`)));
        },
      );
      const deadline = setTimeout(
        () => fail(new OutboundError("timeout", `${url} did not answer within ${options.timeoutMs} ms`)),
        Math.max(0, deadlineAt - performance.now()),
      );
      req.on("error", (error: Error & { code?: string }) => {
        if (error instanceof OutboundError) fail(error);
        else if (
          mayRetry &&
          req.reusedSocket &&
          !answered &&
          !settled &&
          /^(ECONNRESET|EPIPE)$/.test(error.code ?? "")
        ) {
          settled = true;
          clearTimeout(deadline);
          resolve(send(false));
        } else {
          const reason = classify(error);
          fail(new OutboundError(reason, `${target.host} ${FAILURE_TEXT[reason]}`));
        }
      });
      req.on("close", () => clearTimeout(deadline));
      req.end(options.body);
    });
  return send(true);
};
