import assert from "node:assert/strict";
import { test } from "node:test";

import type { CapabilityName } from "./capabilities";
import { intersectCapabilities, restrictToActive } from "./negotiate";

const V = "2026-04-08";
const ours: CapabilityName[] = [
  "dev.ucp.shopping.cart",
  "dev.ucp.shopping.checkout",
  "dev.ucp.shopping.fulfillment",
  "dev.ucp.shopping.discount",
  "dev.ucp.shopping.buyer_consent",
  "dev.ucp.shopping.order",
];
const declare = (...names: string[]) => Object.fromEntries(names.map((n) => [n, [{ version: V }]]));
const sorted = (s: Set<string>) => [...s].sort();

test("the intersection keeps what both declare at a common version", () => {
  assert.deepEqual(
    sorted(
      intersectCapabilities(ours, declare("dev.ucp.shopping.checkout", "dev.ucp.shopping.order", "x.y")),
    ),
    ["dev.ucp.shopping.checkout", "dev.ucp.shopping.order"],
  );
  // another version only: not in common
  assert.deepEqual(
    sorted(intersectCapabilities(ours, { "dev.ucp.shopping.checkout": [{ version: "2026-01-11" }] })),
    [],
  );
  // nothing declared, or garbage
  assert.equal(intersectCapabilities(ours, undefined).size, 0);
  assert.equal(intersectCapabilities(ours, { "dev.ucp.shopping.checkout": "yes" }).size, 0);
});

test("orphaned extensions are pruned: single parent must be present, one of several parents suffices", () => {
  // fulfillment and buyer_consent extend checkout only; discount extends checkout or cart
  const noCheckout = intersectCapabilities(
    ours,
    declare(
      "dev.ucp.shopping.cart",
      "dev.ucp.shopping.fulfillment",
      "dev.ucp.shopping.discount",
      "dev.ucp.shopping.buyer_consent",
    ),
  );
  assert.deepEqual(sorted(noCheckout), ["dev.ucp.shopping.cart", "dev.ucp.shopping.discount"]);
  const onlyExtensions = intersectCapabilities(
    ours,
    declare("dev.ucp.shopping.fulfillment", "dev.ucp.shopping.discount"),
  );
  assert.equal(onlyExtensions.size, 0);
});

test("restrictToActive drops inactive known capabilities from a response", () => {
  const response = declare("dev.ucp.shopping.checkout", "dev.ucp.shopping.fulfillment", "com.example.other");
  assert.deepEqual(Object.keys(restrictToActive(response, new Set(["dev.ucp.shopping.checkout"]))), [
    "dev.ucp.shopping.checkout",
    "com.example.other",
  ]);
});

test("at an older protocol version the intersection is by name (2026-01-11 overview.md:471-486)", () => {
  const platform = { "dev.ucp.shopping.checkout": [{}], "dev.ucp.shopping.fulfillment": [{}] };
  assert.deepEqual(sorted(intersectCapabilities(ours, platform, "2026-01-11")), [
    "dev.ucp.shopping.checkout",
    "dev.ucp.shopping.fulfillment",
  ]);
  // at ours the same entries carry no common version
  assert.equal(intersectCapabilities(ours, platform).size, 0);
});
