import "server-only";

import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";

import ipaddr from "ipaddr.js";

// The one door for outbound fetches of URLs that callers give us — agent profiles today, CIMD documents and
// webhook targets later (DECISIONS.md B10): https only and public addresses only unless `allowPrivate` (test
// mode); the address check runs inside the DNS lookup of the connection itself, so a name cannot resolve to a
// public address for the check and a private one for the connect; no redirects unless the caller allows a few
// (`maxRedirects`, each hop re-validated from scratch: scheme, address, cap); a byte cap read as a stream;
// one timeout per hop.

export type OutboundFailure =
  "scheme" | "blocked_address" | "dns" | "network" | "timeout" | "redirect" | "too_large";

export class OutboundError extends Error {
  readonly reason: OutboundFailure;
  constructor(reason: OutboundFailure, message: string) {
    super(message);
    this.name = "OutboundError";
    this.reason = reason;
  }
}

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
};

export type GuardedResponse = {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The URL that answered (differs from the requested one after followed redirects). */
  url: string;
};

/** Unicast public addresses only: loopback, private, link-local, CGNAT, multicast, reserved… are refused. */
export const isPublicAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 → IPv4
  return parsed.range() === "unicast";
};

const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, "", 4);
        return;
      }
      const blocked = addresses.find((a) => !allowPrivate && !isPublicAddress(a.address));
      if (blocked || addresses.length === 0) {
        const refused = new OutboundError(
          "blocked_address",
          `${hostname} resolves to ${blocked?.address ?? "nothing"}, a non-public address`,
        );
        callback(refused as NodeJS.ErrnoException, "", 4);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
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
    current = new URL(location, current).href;
  }
};

const fetchOnce = (
  url: string,
  options: GuardedFetchOptions,
  mayFollow: boolean,
): Promise<GuardedResponse> => {
  const target = new URL(url);
  const isHttps = target.protocol === "https:";
  if (!isHttps && !(options.allowPrivate && target.protocol === "http:")) {
    return Promise.reject(
      new OutboundError("scheme", `Only https URLs may be fetched (got ${target.protocol})`),
    );
  }
  // A literal IP skips DNS, so check it here as well.
  const literal = target.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(literal) && !options.allowPrivate && !isPublicAddress(literal)) {
    return Promise.reject(new OutboundError("blocked_address", `${literal} is a non-public address`));
  }

  return new Promise<GuardedResponse>((resolve, reject) => {
    // Settles exactly once; every failure path destroys the request without an error object, so no stream is
    // left to emit an unhandled 'error' after we have answered.
    let settled = false;
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      reject(error);
      req.destroy();
    };
    const send = isHttps ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: options.method ?? "GET",
        headers: { accept: "application/json", "user-agent": "agent-commerce-service", ...options.headers },
        lookup: guardedLookup(options.allowPrivate),
      },
      (res) => {
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
        res.on("error", () => fail(new OutboundError("network", `${url}: the response was cut off`)));
      },
    );
    const deadline = setTimeout(
      () => fail(new OutboundError("timeout", `${url} did not answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    req.on("error", (error: Error & { code?: string }) => {
      if (error instanceof OutboundError) fail(error);
      else if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") {
        fail(new OutboundError("dns", `${target.hostname} could not be resolved`));
      } else fail(new OutboundError("network", `${url}: ${error.message}`));
    });
    req.on("close", () => clearTimeout(deadline));
    req.end(options.body);
  });
};
