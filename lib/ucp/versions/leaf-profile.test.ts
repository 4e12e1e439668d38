import assert from "node:assert/strict";
import { test } from "node:test";

import { assertUcpSchema, ucpValidator } from "../../../e2e/helpers/ucp-schema";
import { capabilityEntry, shoppingServices, type CapabilityName } from "../capabilities";
import { handlerDocs } from "./fixtures.test-helpers";
import { CAPABILITIES_AT } from "./index";
import { leafProfile } from "./profile";

// A store profile as lib/stores/store-profile.ts builds it at 2026-04-08 (same builders), and its leaves.
const NAMES: CapabilityName[] = [
  "dev.ucp.shopping.catalog.lookup",
  "dev.ucp.shopping.cart",
  "dev.ucp.shopping.checkout",
  "dev.ucp.shopping.fulfillment",
  "dev.ucp.shopping.discount",
  "dev.ucp.shopping.buyer_consent",
  "dev.ucp.shopping.order",
  "dev.ucp.shopping.ap2_mandate",
  "dev.ucp.common.identity_linking",
];
const current = () => ({
  ucp: {
    version: "2026-04-08",
    supported_versions: { "2026-01-11": "https://svc.example/s/a/.well-known/ucp/2026-01-11" },
    services: shoppingServices("https://svc.example/s/a"),
    capabilities: Object.fromEntries(
      NAMES.map((n) => [
        n,
        [n === "dev.ucp.common.identity_linking" ? capabilityEntry(n, { scopes: {} }) : capabilityEntry(n)],
      ]),
    ),
    payment_handlers: {
      "sh.svc.card": [
        { id: "svc.card", version: "2026-04-08", available_instruments: [{ type: "card" }], config: {} },
      ],
    },
  },
  signing_keys: [{ kid: "k1", kty: "EC", crv: "P-256", x: "x", y: "y" }],
});

test("our current profile is not a valid older profile: the leaf is what makes it one", () => {
  assert.equal(ucpValidator("discovery/profile.json", "2026-01-11")(current()), false);
});

for (const version of ["2026-01-11", "2026-01-23"] as const) {
  test(`the ${version} leaf matches that tag's profile schema and offers only what the version defines`, () => {
    const leaf = leafProfile(version, current(), {
      capabilities: CAPABILITIES_AT[version],
      transports: ["rest"],
      docs: handlerDocs,
    });
    assertUcpSchema("discovery/profile.json", leaf, version);
    const ucp = leaf.ucp as Record<string, unknown>;
    assert.equal(ucp.version, version);
    assert.equal("supported_versions" in ucp, false);
    const names =
      version === "2026-01-11"
        ? (ucp.capabilities as { name: string }[]).map((c) => c.name)
        : Object.keys(ucp.capabilities as object);
    assert.equal(names.includes("dev.ucp.shopping.cart"), false);
    assert.equal(names.includes("dev.ucp.shopping.catalog.lookup"), false);
    assert.equal(names.includes("dev.ucp.shopping.checkout"), true);
    assert.equal(JSON.stringify(leaf).includes("2026-04-08"), false, "nothing of 2026-04-08 left");
    assert.equal(JSON.stringify(leaf).includes('"mcp"'), false, "MCP is not listed when not served");
  });
}

test("the 2026-01-23 leaf is also a business profile of that tag", () => {
  const leaf = leafProfile("2026-01-23", current(), {
    capabilities: CAPABILITIES_AT["2026-01-23"],
    transports: ["rest", "mcp"],
    docs: handlerDocs,
  });
  assertUcpSchema("discovery/profile.json#/$defs/business_profile", leaf, "2026-01-23");
  const discount = (leaf.ucp as { capabilities: Record<string, { extends?: unknown }[]> }).capabilities[
    "dev.ucp.shopping.discount"
  ];
  assert.equal(discount?.[0]?.extends, "dev.ucp.shopping.checkout");
});

test("the 2026-01-11 leaf carries the handlers with their documents in payment.handlers", () => {
  const leaf = leafProfile("2026-01-11", current(), {
    capabilities: CAPABILITIES_AT["2026-01-11"],
    transports: ["rest"],
    docs: handlerDocs,
  });
  const handlers = (leaf.payment as { handlers: { id: string; name: string; spec: string }[] }).handlers;
  assert.deepEqual(
    handlers.map((h) => [h.id, h.name, h.spec]),
    [["svc.card", "sh.svc.card", handlerDocs("sh.svc.card").spec]],
  );
});
