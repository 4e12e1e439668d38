import assert from "node:assert/strict";
import { test } from "node:test";

import { toRawPriceFilter } from "./map-args";
import {
  BridgeInputError,
  formatBaseUnits,
  formatMajor,
  formatMoney,
  MAX_MINOR,
  toMinorUnits,
} from "./money";
import { withFormattedMoney } from "./present";

// Major units at the bridge's edge: integer arithmetic from the ISO 4217 exponent on the shortest decimal form.

const refused = (run: () => unknown, code = "invalid_amount") => {
  assert.throws(run, (error: unknown) => error instanceof BridgeInputError && error.code === code);
};

test("major → minor by the currency's exponent, exact where a float product is not", () => {
  assert.equal(toMinorUnits(0.29, "USD", "$"), 29); // 0.29 * 100 = 28.999999999999996
  assert.equal(toMinorUnits(1.005, "KWD", "$"), 1005);
  assert.equal(toMinorUnits("12.5", "EUR", "$"), 1250);
  assert.equal(toMinorUnits("12.50", "EUR", "$"), 1250);
  assert.equal(toMinorUnits(" 7 ", "USD", "$"), 700);
  assert.equal(toMinorUnits(1200, "JPY", "$"), 1200);
  assert.equal(toMinorUnits("0.0001", "CLF", "$"), 1);
  assert.equal(toMinorUnits(0, "USD", "$"), 0);
  assert.equal(toMinorUnits("21474836.47", "USD", "$"), MAX_MINOR);
});

test("exponents, signs, extra decimals, non-numbers and absurd amounts are refused with the path", () => {
  for (const bad of [
    "1e3",
    "1E3",
    1e21,
    1e-7,
    -1,
    "-0.5",
    "+1",
    "12.345",
    "",
    ".5",
    "5.",
    "1,5",
    "NaN",
    Infinity,
    NaN,
  ]) {
    refused(() => toMinorUnits(bad, "USD", "$.x"));
  }
  refused(() => toMinorUnits("12.5", "JPY", "$"));
  refused(() => toMinorUnits("21474836.48", "USD", "$"));
  refused(() => toMinorUnits("99999999999999999999999", "USD", "$"));
  try {
    toMinorUnits("12.345", "USD", "$.filters.price.max");
  } catch (error) {
    assert.equal((error as BridgeInputError).path, "$.filters.price.max");
  }
});

test("a price filter needs a known currency; min ≤ max", () => {
  assert.deepEqual(toRawPriceFilter({ min: 10, max: "25.5", currency: "usd" }, "$.p"), {
    min: 1000,
    max: 2550,
    currency: "USD",
  });
  refused(() => toRawPriceFilter({ max: 10 }, "$.p"), "currency_required");
  refused(() => toRawPriceFilter({ max: 10, currency: "ABC" }, "$.p"), "invalid_currency");
  refused(() => toRawPriceFilter({ min: 3, max: 2, currency: "USD" }, "$.p"));
});

test("minor → formatted, exact digits", () => {
  assert.equal(formatMajor(5, "USD"), "0.05");
  assert.equal(formatMajor(-1234, "USD"), "-12.34");
  assert.equal(formatMajor(1200, "JPY"), "1200");
  assert.equal(formatMoney(5940, "USD"), "$59.40");
  assert.equal(formatMoney(1200, "JPY"), "¥1,200");
  assert.equal(formatMoney(1250, "KWD"), "KWD 1.250");
  assert.equal(formatMoney(900719925474099, "USD"), "$9,007,199,254,740.99");
});

test("results keep minor units and gain formatted twins (Price objects, totals and line prices in a currency)", () => {
  const out = withFormattedMoney({
    products: [{ variants: [{ price: { amount: 2450, currency: "USD" } }] }],
    checkout: {
      currency: "EUR",
      totals: [{ type: "total", amount: 999 }],
      line_items: [{ item: { id: "v", price: 333 }, quantity: 3 }],
    },
  });
  assert.deepEqual(out.products[0]?.variants[0]?.price, {
    amount: 2450,
    currency: "USD",
    formatted: "$24.50",
  });
  assert.deepEqual(out.checkout.totals[0], { type: "total", amount: 999, formatted: "€9.99" });
  assert.deepEqual(out.checkout.line_items[0]?.item, { id: "v", price: 333, price_formatted: "€3.33" });
});

test("coin base units → whole coins by string arithmetic, exact beyond a double's 53 bits", () => {
  assert.equal(formatBaseUnits("25000000", 6), "25");
  assert.equal(formatBaseUnits("25000001", 6), "25.000001");
  assert.equal(formatBaseUnits("1500000001", 9), "1.500000001");
  assert.equal(formatBaseUnits("7", 9), "0.000000007");
  assert.equal(formatBaseUnits("0", 6), "0");
  assert.equal(formatBaseUnits("0012", 0), "12");
  // u64 max: 18446744073709551615 does not survive Number()
  assert.equal(formatBaseUnits("18446744073709551615", 9), "18446744073.709551615");
  for (const bad of ["-1", "1.5", "1e3", ""]) assert.throws(() => formatBaseUnits(bad, 6));
  assert.throws(() => formatBaseUnits("1", -1));
});

test("formatMoney gives the same text from its cached formatters, and a code Intl refuses still falls back", () => {
  const currencies = ["USD", "JPY", "KWD", "EUR", "CLF"];
  const first = currencies.map((c) => formatMoney(123456, c));
  for (let i = 0; i < 3; i++)
    assert.deepEqual(
      currencies.map((c) => formatMoney(123456, c)),
      first,
    );
  assert.equal(formatMoney(5940, "USD"), "$59.40");
  assert.equal(formatMoney(1250, "1$X"), "12.50 1$X");
  assert.equal(formatMoney(1250, "1$X"), "12.50 1$X");
});
