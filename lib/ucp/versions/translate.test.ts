import assert from "node:assert/strict";
import { test } from "node:test";

import { assertUcpSchema } from "../../../e2e/helpers/ucp-schema";
import { checkout0408, handlerDocs } from "./fixtures.test-helpers";
import { existsAt, translateRequest, translateResponse } from "./translate";

test("only the checkout operations exist at the older versions", () => {
  for (const version of ["2026-01-11", "2026-01-23"] as const) {
    assert.equal(existsAt(version, "update_checkout"), true);
    for (const op of ["create_cart", "search_catalog", "lookup_catalog", "get_product", "get_order"]) {
      assert.equal(existsAt(version, op), false, `${op} at ${version}`);
    }
  }
});

test("a checkout answer is translated, an error envelope gets the older status and body", () => {
  const ok = translateResponse("2026-01-23", "get_checkout", 200, checkout0408(), handlerDocs);
  assert.equal(ok.status, 200);
  assertUcpSchema("shopping/fulfillment.json#/$defs/checkout", ok.body, "2026-01-23");
  const missing = translateResponse(
    "2026-01-11",
    "get_checkout",
    200,
    {
      ucp: { version: "2026-04-08", status: "error" },
      messages: [{ type: "error", code: "not_found", content: "No checkout", severity: "unrecoverable" }],
    },
    handlerDocs,
  );
  assert.equal(missing.status, 404);
  assert.equal((missing.body as { status: string }).status, "requires_escalation");
});

test("requests of operations with no body, or not checkout, pass untouched", () => {
  const body = { payment: { instruments: [] } };
  assert.equal(
    translateRequest("2026-01-11", "prepare_checkout_payment", body, { storeCurrency: "USD" }),
    body,
  );
});
