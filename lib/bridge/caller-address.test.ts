import assert from "node:assert/strict";
import { test } from "node:test";

import { parseCidrList } from "@/lib/config/cidr";

import { standaloneCallerAddress } from "./http";

// The stand-alone bridge names its caller to the service by the socket it saw, believing X-Forwarded-For only
// from its own trusted proxies and only back to the first hop they vouch for: a caller cannot name itself.

const forwarded = (peer: string, headers: Record<string, string>, proxies = "") =>
  standaloneCallerAddress(peer, new Headers(headers), parseCidrList(proxies)!)?.headers.forwarded;

test("the caller's own X-Forwarded-For is ignored: the socket's peer is the caller", () => {
  assert.equal(forwarded("198.51.100.7", { "x-forwarded-for": "203.0.113.1" }), "for=198.51.100.7");
});

test("behind the bridge's trusted proxy: the first hop the proxy vouches for, never what the caller prepended", () => {
  assert.equal(
    forwarded("10.0.0.5", { "x-forwarded-for": "1.2.3.4, 203.0.113.9" }, "10.0.0.0/8"),
    "for=203.0.113.9",
  );
});

test("an IPv6 caller is quoted and bracketed (RFC 7239); no socket address, nothing forwarded", () => {
  assert.equal(forwarded("2001:db8::7", {}), 'for="[2001:db8::7]"');
  assert.equal(standaloneCallerAddress(undefined, new Headers(), []), undefined);
});
