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
