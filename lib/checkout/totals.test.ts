import assert from "node:assert/strict";
import { test } from "node:test";

import { checkoutTotals } from "./totals";

const sumInvariant = (totals: { type: string; amount: number }[]) => {
  const total = totals.find((t) => t.type === "total")!.amount;
  assert.equal(
    totals.filter((t) => t.type !== "total").reduce((a, t) => a + t.amount, 0),
    total,
  );
};

test("tax applies to discounted goods plus shipping, rounded half up once", () => {
  const totals = checkoutTotals({ goods: 10000, discount: 1000, fulfillment: 599, taxRateBps: 825 });
  // (10000 − 1000 + 599) × 8.25 % = 791.9175 → 792
  assert.deepEqual(
    totals.map((t) => [t.type, t.amount]),
    [
      ["subtotal", 10000],
      ["discount", -1000],
      ["fulfillment", 599],
      ["tax", 792],
      ["total", 10391],
    ],
  );
  sumInvariant(totals);
});

test("no discount entry at zero (the schema wants discounts < 0), no shipping entry before a choice, no tax at 0 bps", () => {
  const totals = checkoutTotals({ goods: 500, discount: 0, fulfillment: null, taxRateBps: 0 });
  assert.deepEqual(
    totals.map((t) => t.type),
    ["subtotal", "total"],
  );
  assert.deepEqual(
    checkoutTotals({ goods: 500, discount: 0, fulfillment: 0, taxRateBps: 0 }).map((t) => [t.type, t.amount]),
    [
      ["subtotal", 500],
      ["fulfillment", 0],
      ["total", 500],
    ],
  );
});

test("a tax label shows the rate without float formatting", () => {
  const label = (bps: number) =>
    checkoutTotals({ goods: 1, discount: 0, fulfillment: null, taxRateBps: bps }).find(
      (t) => t.type === "tax",
    )?.display_text;
  assert.equal(label(825), "Tax (8.25%)");
  assert.equal(label(1900), "Tax (19%)");
  assert.equal(label(750), "Tax (7.5%)");
});
