import { randomBytes, timingSafeEqual } from "node:crypto";

import type ipaddr from "ipaddr.js";

import { inCidrs, parseAddress, type Cidr } from "@/lib/config/cidr";

// The client address a request's budget is keyed by. The socket's peer address reaches the route handlers in one
// header that our own HTTP server (scripts/serve.ts, lib/http/raw-request.ts) sets on every request after deleting
// whatever the client sent under that name. X-Forwarded-For / Forwarded are believed only when that peer is a
// configured proxy (TRUSTED_PROXIES), and then only back to the first hop that is not itself a trusted proxy: a
// client cannot name its own address by sending the header.

/** Set by our HTTP server from the socket; a client's own value is deleted before Next sees the request. */
export const CLIENT_ADDRESS_HEADER = "x-acs-client-address";

// The stamp carries a random token of this process, kept on globalThis (Next loads its own instance of this
// module beside the one scripts/serve.ts imports): served by anything else (`next dev`, `next start`), where
// nobody deletes a client's value, a header the client made up is not believed either.
const TOKEN_KEY = Symbol.for("agent-commerce-service.client-address-token");
type Holder = { [TOKEN_KEY]?: string };
const processToken = (): string =>
  ((globalThis as Holder)[TOKEN_KEY] ??= randomBytes(18).toString("base64url"));

/** The header value our server sets for a peer address. */
export const clientAddressStamp = (address: string): string => `${processToken()};${address}`;

/** The address in a stamp made by this process, or null. */
const stampedAddress = (value: string | null): string | null => {
  const separator = value?.indexOf(";") ?? -1;
  if (!value || separator < 0) return null;
  const token = Buffer.from(value.slice(0, separator));
  const expected = Buffer.from(processToken());
  return token.length === expected.length && timingSafeEqual(token, expected)
    ? value.slice(separator + 1)
    : null;
};

/** When the server set no address (a route called in-process): one shared anonymous budget. */
export const UNKNOWN_CLIENT = "unknown";

/** `for=` values of a Forwarded header (RFC 7239), client first: quotes, IPv6 brackets and ports removed. */
const forwardedFor = (header: string): string[] =>
  header.split(",").map((element) => {
    const pair = element
      .split(";")
      .map((p) => p.trim())
      .find((p) => p.toLowerCase().startsWith("for="));
    let value = (pair?.slice(4) ?? "").trim().replace(/^"|"$/g, "");
    const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
    if (bracketed?.[1]) value = bracketed[1];
    else if (/^[\d.]+:\d+$/.test(value)) value = value.replace(/:\d+$/, "");
    return value;
  });

/** The proxies' hops, client first: Forwarded when present, else X-Forwarded-For. */
const forwardedChain = (headers: Headers): string[] => {
  const forwarded = headers.get("forwarded");
  if (forwarded) return forwardedFor(forwarded);
  const xff = headers.get("x-forwarded-for");
  return xff ? xff.split(",").map((hop) => hop.trim()) : [];
};

/** An IPv6 client is counted by its /64 (one subscriber's usual allocation), an IPv4 one by its address. */
const budgetKey = (address: ipaddr.IPv4 | ipaddr.IPv6): string => {
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
};

/** The address the request's anonymous budget and failed-authentication counters are keyed by. */
export const clientAddress = (headers: Headers, trustedProxies: readonly Cidr[]): string => {
  const peer = parseAddress(stampedAddress(headers.get(CLIENT_ADDRESS_HEADER)) ?? "");
  if (!peer) return UNKNOWN_CLIENT;
  let client = peer;
  if (trustedProxies.length > 0 && inCidrs(peer, trustedProxies)) {
    // from the nearest hop back: each trusted proxy vouches for the hop before it; the first untrusted hop is
    // the client (anything further left was written by the client itself)
    const chain = forwardedChain(headers);
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = parseAddress(chain[i] ?? "");
      if (!hop) break;
      client = hop;
      if (!inCidrs(hop, trustedProxies)) break;
    }
  }
  return budgetKey(client);
};
