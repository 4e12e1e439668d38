import assert from "node:assert/strict";
import { test } from "node:test";

import type { MandateTerms } from "./mandate-terms";
import { describeTermsChange, readTermsHistory, recordTerms, TERMS_HISTORY_LIMIT } from "./terms-history";

const base: MandateTerms = {
  checkout_id: "chk_1",
  merchant: "acme",
  currency: "USD",
  line_items: [
    { item: { id: "var_a", price: 1000 }, quantity: 1 },
    { item: { id: "var_b", price: 500 }, quantity: 2 },
  ],
  totals: [
    { type: "subtotal", amount: 2000 },
    { type: "total", amount: 2000 },
  ],
  buyer: { email: "ada@example.com" },
  fulfillment: { method: "shipping", option: "standard" },
};

test("recordTerms appends changed terms, skips a repeat of the newest, keeps the last few, ignores junk", () => {
  const one = recordTerms([], base);
  assert.deepEqual(one, [base]);
  assert.deepEqual(recordTerms(one, structuredClone(base)), [base], "equal terms are not recorded twice");
  let history: unknown = [{ not: "terms" }, 42];
  for (let total = 1; total <= TERMS_HISTORY_LIMIT + 2; total++) {
    history = recordTerms(history, { ...base, totals: [{ type: "total", amount: total }] });
  }
  const kept = readTermsHistory(history);
  assert.equal(kept.length, TERMS_HISTORY_LIMIT);
  assert.deepEqual(
    kept.map((t) => t.totals[0]!.amount),
    [3, 4, 5, 6, 7],
  );
  assert.deepEqual(readTermsHistory("nonsense"), []);
});

test("describeTermsChange matches lines by item and totals by type, and names nested fields", () => {
  const now: MandateTerms = {
    ...base,
    line_items: [
      { item: { id: "var_b", price: 550 }, quantity: 2 },
      { item: { id: "var_c", price: 100 }, quantity: 1 },
    ],
    totals: [
      { type: "subtotal", amount: 1200 },
      { type: "discount", amount: -100 },
      { type: "total", amount: 1100 },
    ],
    buyer: {},
    fulfillment: { method: "shipping", option: "express", destination: { postal_code: "80202" } },
  };
  assert.deepEqual(describeTermsChange(base, now), [
    "line_items[var_a] removed",
    "line_items[var_b].price 500 → 550",
    "line_items[var_c] added",
    "totals[subtotal] 2000 → 1200",
    "totals[total] 2000 → 1100",
    "totals[discount] (none) → -100",
    'buyer.email "ada@example.com" → (none)',
    'fulfillment.option "standard" → "express"',
    'fulfillment.destination (none) → {"postal_code":"80202"}',
  ]);
  assert.deepEqual(describeTermsChange(base, structuredClone(base)), []);
});
