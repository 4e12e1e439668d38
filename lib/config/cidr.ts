import ipaddr from "ipaddr.js";

// CIDR lists from configuration (TRUSTED_PROXIES): parsed once with ipaddr.js, matched with IPv4-mapped IPv6
// addresses folded to IPv4 so `127.0.0.1/32` also matches a dual-stack socket's `::ffff:127.0.0.1`.

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** One address in its plain form (IPv4-mapped IPv6 → IPv4), or null when it is not an IP address. */
export const parseAddress = (text: string): ipaddr.IPv4 | ipaddr.IPv6 | null => {
  const trimmed = text.trim();
  if (!ipaddr.isValid(trimmed)) return null;
  const address = ipaddr.parse(trimmed);
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
};

/** `10.0.0.0/8, 127.0.0.1` → CIDRs (a bare address is a /32 or /128); null when any entry is not one. */
export const parseCidrList = (text: string): Cidr[] | null => {
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const cidrs: Cidr[] = [];
  for (const entry of entries) {
    if (entry.includes("/")) {
      try {
        const [address, bits] = ipaddr.parseCIDR(entry);
        cidrs.push([address, bits]);
      } catch {
        return null;
      }
      continue;
    }
    const address = parseAddress(entry);
    if (!address) return null;
    cidrs.push([address, address.kind() === "ipv4" ? 32 : 128]);
  }
  return cidrs;
};

/** Whether `address` lies in one of `cidrs`. */
export const inCidrs = (address: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly Cidr[]): boolean =>
  cidrs.some(([range, bits]) => {
    if (address.kind() === "ipv4" && range.kind() === "ipv4") {
      return (address as ipaddr.IPv4).match(range as ipaddr.IPv4, bits);
    }
    if (address.kind() === "ipv6" && range.kind() === "ipv6") {
      return (address as ipaddr.IPv6).match(range as ipaddr.IPv6, bits);
    }
    return false;
  });

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

/**
 * The client behind a socket peer: the peer itself, or when the peer is a configured proxy, the first hop of
 * X-Forwarded-For / Forwarded (walking back from the nearest) that is not itself a trusted proxy. Anything further
 * left was written by the client and is never believed. The service's budgets (lib/rate-limit/client-address.ts)
 * and the stand-alone bridge (lib/bridge/http.ts) resolve their caller with this one rule.
 */
export const forwardedClient = (
  peer: ipaddr.IPv4 | ipaddr.IPv6,
  headers: Headers,
  trustedProxies: readonly Cidr[],
): ipaddr.IPv4 | ipaddr.IPv6 => {
  let client = peer;
  if (trustedProxies.length > 0 && inCidrs(peer, trustedProxies)) {
    const chain = forwardedChain(headers);
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = parseAddress(chain[i] ?? "");
      if (!hop) break;
      client = hop;
      if (!inCidrs(hop, trustedProxies)) break;
    }
  }
  return client;
};
