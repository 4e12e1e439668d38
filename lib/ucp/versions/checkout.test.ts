import assert from "node:assert/strict";
import { test } from "node:test";

import { assertUcpSchema, ucpValidator } from "../../../e2e/helpers/ucp-schema";
import { checkoutDown } from "./checkout";
import { checkout0408, handlerDocs } from "./fixtures.test-helpers";

// Each older checkout answer is checked against that tag's official schemas (the extensions composed); the
// request side (`checkoutUp`) is tested in lib/checkout/older-requests.test.ts, beside the input schemas.

const REFS = {
  "2026-01-11": [
    "shopping/fulfillment.json#/$defs/checkout",
    "shopping/discount.json#/$defs/checkout",
    "shopping/buyer_consent.json#/$defs/checkout",
  ],
  "2026-01-23": [
    "shopping/fulfillment.json#/$defs/checkout",
    "shopping/discount.json#/$defs/checkout",
    "shopping/buyer_consent.json#/$defs/checkout",
  ],
} as const;

test("the fixture is a valid 2026-04-08 checkout and invalid at both older versions untranslated", () => {
  assertUcpSchema("shopping/fulfillment.json#/$defs/dev.ucp.shopping.checkout", checkout0408());
  for (const version of ["2026-01-11", "2026-01-23"] as const) {
    assert.equal(ucpValidator(REFS[version][0], version)(checkout0408()), false, version);
  }
});

for (const version of ["2026-01-11", "2026-01-23"] as const) {
  test(`checkoutDown at ${version} matches the official schemas`, () => {
    const out = checkoutDown(version, checkout0408(), handlerDocs);
    for (const ref of REFS[version]) assertUcpSchema(ref, out, version);
    assert.equal((out.ucp as { version: string }).version, version);
    assert.deepEqual(out.totals, [
      { type: "subtotal", amount: 4000 },
      { type: "discount", amount: 400 },
      { type: "fulfillment", amount: 500 },
      { type: "total", amount: 4100 },
    ]);
    for (const gone of ["context", "signals", "attribution", "cart_id"])
      assert.equal(gone in out, false, gone);
    assert.deepEqual(out.order, { id: "ord_1", permalink_url: "https://shop.example/o/ord_1" });
    assert.equal((out.messages as { severity: string }[])[0]!.severity, "requires_buyer_input");
  });
}

test("at 2026-01-11 capabilities are an array and the handlers move to payment.handlers", () => {
  const out = checkoutDown("2026-01-11", checkout0408(), handlerDocs);
  assert.deepEqual(out.ucp, {
    version: "2026-01-11",
    capabilities: [
      { name: "dev.ucp.shopping.checkout", version: "2026-01-11" },
      { name: "dev.ucp.shopping.fulfillment", version: "2026-01-11" },
      { name: "dev.ucp.shopping.discount", version: "2026-01-11" },
      { name: "dev.ucp.shopping.buyer_consent", version: "2026-01-11" },
    ],
  });
  assert.deepEqual(out.payment, {
    handlers: [
      {
        id: "svc.card",
        name: "sh.svc.card",
        version: "2026-01-11",
        ...handlerDocs("sh.svc.card"),
        config: {
          environment: "sandbox",
          currency: "USD",
          available_instruments: [{ type: "card", constraints: { brands: ["visa"] } }],
        },
      },
    ],
    selected_instrument_id: "i1",
  });
});

test("at 2026-01-11 a checkout with no stored instrument says so with an empty instruments list", () => {
  const { payment: _none, ...bare } = checkout0408();
  const out = checkoutDown("2026-01-11", bare, handlerDocs);
  assertUcpSchema(REFS["2026-01-11"][0], out, "2026-01-11");
  const payment = out.payment as { instruments?: unknown[]; selected_instrument_id?: string };
  assert.deepEqual(payment.instruments, []);
  assert.equal("selected_instrument_id" in payment, false);
});

test("at 2026-01-23 capabilities stay a map at that version and handlers lose available_instruments", () => {
  const out = checkoutDown("2026-01-23", checkout0408(), handlerDocs);
  const ucp = out.ucp as {
    capabilities: Record<string, unknown>;
    payment_handlers: Record<string, unknown[]>;
  };
  assert.deepEqual(ucp.capabilities["dev.ucp.shopping.checkout"], [{ version: "2026-01-23" }]);
  assert.equal("status" in ucp, false);
  assert.deepEqual(ucp.payment_handlers["sh.svc.card"], [
    { id: "svc.card", version: "2026-01-23", config: { environment: "sandbox", currency: "USD" } },
  ]);
});
