import assert from "node:assert/strict";
import { test } from "node:test";

import { parseCidrList } from "@/lib/config/cidr";

import {
  CLIENT_ADDRESS_HEADER,
  clientAddress,
  clientAddressStamp,
  HANDOVER_HEADER,
  handOverClientAddress,
  UNKNOWN_CLIENT,
} from "./client-address";

// The client address behind the anonymous budget: the socket's peer (stamped by our server), X-Forwarded-For or
// Forwarded believed only from configured proxies and only back to the first untrusted hop.

const PROXIES = parseCidrList("10.0.0.0/8, 192.168.1.1")!;
const at = (peer: string | null, extra: Record<string, string> = {}) =>
  new Headers({ ...(peer === null ? {} : { [CLIENT_ADDRESS_HEADER]: clientAddressStamp(peer) }), ...extra });

test("no trusted proxy configured: X-Forwarded-For and Forwarded are ignored, the peer is the client", () => {
  const headers = at("198.51.100.7", { "x-forwarded-for": "203.0.113.1", forwarded: "for=203.0.113.2" });
  assert.equal(clientAddress(headers, []), "198.51.100.7");
});

test("an untrusted peer cannot name its address, whatever it forwards", () => {
  const headers = at("198.51.100.7", { "x-forwarded-for": "10.0.0.1, 203.0.113.1" });
  assert.equal(clientAddress(headers, PROXIES), "198.51.100.7");
});

test("a trusted proxy: the nearest untrusted hop is the client, anything further left is the client's own text", () => {
  assert.equal(clientAddress(at("10.1.2.3", { "x-forwarded-for": "203.0.113.9" }), PROXIES), "203.0.113.9");
  // the client sent X-Forwarded-For: 1.2.3.4 itself; the proxy appended the real address
  const spoofed = at("10.1.2.3", { "x-forwarded-for": "1.2.3.4, 203.0.113.9" });
  assert.equal(clientAddress(spoofed, PROXIES), "203.0.113.9");
  // two trusted proxies in a row
  const chained = at("10.1.2.3", { "x-forwarded-for": "1.2.3.4, 203.0.113.9, 192.168.1.1" });
  assert.equal(clientAddress(chained, PROXIES), "203.0.113.9");
  // nothing forwarded: the proxy itself
  assert.equal(clientAddress(at("10.1.2.3"), PROXIES), "10.1.2.3");
  // garbage in the chain stops the walk at the last address a trusted proxy vouched for
  assert.equal(
    clientAddress(at("10.1.2.3", { "x-forwarded-for": "203.0.113.9, unknown" }), PROXIES),
    "10.1.2.3",
  );
});

test("Forwarded (RFC 7239) wins over X-Forwarded-For; quotes, brackets and ports are removed", () => {
  const headers = at("10.0.0.5", {
    forwarded: 'for=1.2.3.4, for="[2001:db8:cafe::17]:4711";proto=https',
    "x-forwarded-for": "203.0.113.50",
  });
  assert.equal(clientAddress(headers, PROXIES), "2001:db8:cafe:0::/64");
  assert.equal(
    clientAddress(at("10.0.0.5", { forwarded: "for=192.0.2.60:8080;by=10.0.0.5" }), PROXIES),
    "192.0.2.60",
  );
});

test("IPv4-mapped peers match IPv4 proxies; IPv6 clients share their /64; no peer is one unknown client", () => {
  assert.equal(
    clientAddress(at("::ffff:10.0.0.9", { "x-forwarded-for": "203.0.113.4" }), PROXIES),
    "203.0.113.4",
  );
  assert.equal(clientAddress(at("::ffff:198.51.100.7"), []), "198.51.100.7");
  assert.equal(clientAddress(at("2001:db8:1:2:aaaa::1"), []), clientAddress(at("2001:db8:1:2:bbbb::9"), []));
  assert.notEqual(clientAddress(at("2001:db8:1:2::1"), []), clientAddress(at("2001:db8:1:3::1"), []));
  assert.equal(clientAddress(at(null, { "x-forwarded-for": "203.0.113.4" }), PROXIES), UNKNOWN_CLIENT);
  assert.equal(clientAddress(at("not an address"), PROXIES), UNKNOWN_CLIENT);
});

test("an address header our server did not stamp (served by another server, or made up) is not believed", () => {
  const madeUp = new Headers({ [CLIENT_ADDRESS_HEADER]: "198.51.100.7" });
  assert.equal(clientAddress(madeUp, []), UNKNOWN_CLIENT);
  const wrongToken = new Headers({ [CLIENT_ADDRESS_HEADER]: "guessed-token;198.51.100.7" });
  assert.equal(clientAddress(wrongToken, []), UNKNOWN_CLIENT);
  assert.equal(
    clientAddress(new Headers({ [CLIENT_ADDRESS_HEADER]: clientAddressStamp("198.51.100.7") }), []),
    "198.51.100.7",
  );
});

test("TRUSTED_PROXIES parsing: CIDRs and bare addresses, anything else refused", () => {
  assert.equal(parseCidrList("10.0.0.0/8,::1, 2001:db8::/32")?.length, 3);
  assert.deepEqual(parseCidrList(""), []);
  assert.equal(parseCidrList("10.0.0.0/33"), null);
  assert.equal(parseCidrList("example.com"), null);
});

test("a handed-over address (the mounted bridge's caller) wins over the bridge's own socket while its request lasts", () => {
  const handover = handOverClientAddress("198.51.100.40");
  const fromBridge = at("127.0.0.1", { ...handover.headers, "x-forwarded-for": "203.0.113.1" });
  assert.equal(clientAddress(fromBridge, parseCidrList("127.0.0.1")!), "198.51.100.40");
  handover.release();
  // once the bridge request is over, the same handle is nobody's
  assert.equal(clientAddress(fromBridge, []), "127.0.0.1");
  // a handle the caller made up is not believed either
  const forged = at("198.51.100.7", { [HANDOVER_HEADER]: "x".repeat(32) });
  assert.equal(clientAddress(forged, []), "198.51.100.7");
});
