import assert from "node:assert/strict";
import { test } from "node:test";

import { assertUcpSchema } from "../../../e2e/helpers/ucp-schema";
import { totalDown, totalsDown } from "./totals";

test("discounts lose their sign, the type carries it; lines are dropped", () => {
  assert.deepEqual(totalDown({ type: "discount", amount: -400, lines: [] }), {
    type: "discount",
    amount: 400,
  });
  assert.deepEqual(totalDown({ type: "items_discount", amount: -1 }), { type: "items_discount", amount: 1 });
  assert.deepEqual(totalDown({ type: "tax", amount: 7, display_text: "VAT" }), {
    type: "tax",
    amount: 7,
    display_text: "VAT",
  });
});

test("a type outside the older enum folds into fee or discount with its name as display text", () => {
  assert.deepEqual(totalDown({ type: "account_credit", amount: -250 }), {
    type: "discount",
    amount: 250,
    display_text: "account_credit",
  });
  assert.deepEqual(totalDown({ type: "handling", amount: 99, display_text: "Handling" }), {
    type: "fee",
    amount: 99,
    display_text: "Handling",
  });
});

test("every translated total matches total.json at both older versions", () => {
  const out = totalsDown([
    { type: "subtotal", amount: 1000 },
    { type: "discount", amount: -100 },
    { type: "account_credit", amount: -50 },
    { type: "total", amount: 850 },
  ]) as unknown[];
  for (const version of ["2026-01-11", "2026-01-23"] as const) {
    for (const total of out) assertUcpSchema("shopping/types/total.json", total, version);
  }
});
