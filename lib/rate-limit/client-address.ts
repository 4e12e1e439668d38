import { randomBytes, timingSafeEqual } from "node:crypto";

import type ipaddr from "ipaddr.js";

import { forwardedClient, parseAddress, type Cidr } from "@/lib/config/cidr";

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

/** An IPv6 client is counted by its /64 (one subscriber's usual allocation), an IPv4 one by its address. */
const budgetKey = (address: ipaddr.IPv4 | ipaddr.IPv6): string => {
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
};

/** The address the request's anonymous budget and failed-authentication counters are keyed by. */
export const clientAddress = (headers: Headers, trustedProxies: readonly Cidr[]): string => {
  // the mounted bridge's caller, as the bridge's own request resolved it (handed over, never a caller's claim)
  const handed = handedOverAddress(headers.get(HANDOVER_HEADER));
  if (handed !== null) return handed;
  const peer = parseAddress(stampedAddress(headers.get(CLIENT_ADDRESS_HEADER)) ?? "");
  if (!peer) return UNKNOWN_CLIENT;
  return budgetKey(forwardedClient(peer, headers, trustedProxies));
};

// The mounted bridge (app/bridge) is a client of this same process over HTTP: its calls reach the service from a
// loopback socket, and what a caller of the bridge wrote in X-Forwarded-For is that caller's claim. So the bridge
// hands its caller's address (as this module resolved it for the bridge's own request) to its calls with a
// per-request handle: a random value registered here for the duration of the bridge request, sent in
// HANDOVER_HEADER, and looked up by the service's prelude in the same process. A caller cannot forge one (it is
// random and lives only while its bridge request runs); a request the bridge did not make carries none.

/** The header the mounted bridge's calls carry the handle in. */
export const HANDOVER_HEADER = "x-acs-caller-handover";

const HANDOVERS_KEY = Symbol.for("agent-commerce-service.client-address-handovers");
type Handovers = { [HANDOVERS_KEY]?: Map<string, string> };
// on globalThis: Next may load this module once per bundle (the bridge route's and the service routes')
const handovers = ((globalThis as Handovers)[HANDOVERS_KEY] ??= new Map<string, string>());

/** The client address a live handle stands for, or null. */
const handedOverAddress = (handle: string | null): string | null =>
  handle === null || handle.length !== 32 ? null : (handovers.get(handle) ?? null);

/**
 * Registers `address` (a budget key as clientAddress returns it) for in-process hand-over: the headers to send
 * with the calls made on the caller's behalf, and `release` to call when the caller's request ends.
 */
export const handOverClientAddress = (
  address: string,
): { headers: Record<string, string>; release: () => void } => {
  const handle = randomBytes(24).toString("base64url");
  handovers.set(handle, address);
  return { headers: { [HANDOVER_HEADER]: handle }, release: () => handovers.delete(handle) };
};
