import assert from "node:assert/strict";
import { test } from "node:test";

import type { DiscountCode } from "@/lib/generated/prisma/client";

import { evaluateDiscounts } from "./discounts";

const NOW = new Date("2026-11-22T00:00:00Z");
const row = (over: Partial<DiscountCode> & Pick<DiscountCode, "code" | "kind" | "value">): DiscountCode => ({
  id: `dsc_${over.code}`,
  storeId: "store_1",
  title: over.code,
  minSubtotalMinor: 0,
  startsAt: null,
  expiresAt: null,
  ...over,
});
const ROWS = [
  row({ code: "TEN", kind: "percentage", value: 1000 }),
  row({ code: "BIG", kind: "fixed_amount", value: 50000 }),
  row({ code: "FIVE", kind: "fixed_amount", value: 500 }),
  row({ code: "GONE", kind: "fixed_amount", value: 500, expiresAt: new Date("2026-11-21T23:59:59Z") }),
];

test("codes match case-insensitively and stack in the order sent, each on what is left", () => {
  const out = evaluateDiscounts({ codes: ["five", "Ten"], rows: ROWS, lineAmounts: [6000, 4000], now: NOW });
  // 10000 − 500 = 9500; 10 % of 9500 = 950
  assert.deepEqual(
    out.applied.map((a) => [a.code, a.amount, a.priority]),
    [
      ["FIVE", 500, 1],
      ["TEN", 950, 2],
    ],
  );
  assert.equal(out.total, 1450);
  assert.deepEqual(out.applied[1]?.allocations, [
    { path: "$.line_items[0]", amount: 570 },
    { path: "$.line_items[1]", amount: 380 },
  ]);
  assert.deepEqual(out.messages, []);
});

test("a fixed amount larger than the goods is capped: the total never goes negative", () => {
  const out = evaluateDiscounts({ codes: ["BIG", "FIVE"], rows: ROWS, lineAmounts: [1200], now: NOW });
  assert.deepEqual(
    out.applied.map((a) => a.amount),
    [1200, 0],
  );
  assert.equal(out.total, 1200);
});

test("unknown, expired and repeated codes are warnings at their index; an expiry exactly now has expired", () => {
  const out = evaluateDiscounts({
    codes: ["nope", "GONE", "TEN", "ten"],
    rows: [...ROWS, row({ code: "EDGE", kind: "fixed_amount", value: 1, expiresAt: NOW })],
    lineAmounts: [1000],
    now: NOW,
  });
  assert.deepEqual(
    out.messages.map((m) => [m.type, m.code, m.path]),
    [
      ["warning", "discount_code_invalid", "$.discounts.codes[0]"],
      ["warning", "discount_code_expired", "$.discounts.codes[1]"],
      ["warning", "discount_code_already_applied", "$.discounts.codes[3]"],
    ],
  );
  const edge = evaluateDiscounts({
    codes: ["EDGE"],
    rows: [row({ code: "EDGE", kind: "fixed_amount", value: 1, expiresAt: NOW })],
    lineAmounts: [1000],
    now: NOW,
  });
  assert.equal(edge.messages[0]?.code, "discount_code_expired");
});
