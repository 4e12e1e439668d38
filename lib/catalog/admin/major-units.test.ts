import assert from "node:assert/strict";
import { test } from "node:test";

import { currencyExponent, formatMajor, parseMajor } from "./major-units";

test("each currency keeps its own exponent, asked in any order and again", () => {
  for (const round of [1, 2]) {
    assert.deepEqual(
      ["USD", "JPY", "KWD", "EUR", "JPY"].map((c) => currencyExponent(c)),
      [2, 0, 3, 2, 0],
      `round ${round}`,
    );
  }
  assert.equal(currencyExponent("not a currency"), 2);
});

test("amounts in and out of minor units with the currency's exponent", () => {
  assert.deepEqual(parseMajor("12.50", "USD"), { ok: true, minor: 1250 });
  assert.deepEqual(parseMajor("1200", "JPY"), { ok: true, minor: 1200 });
  assert.equal(parseMajor("12.5", "JPY").ok, false);
  assert.deepEqual(parseMajor("1.005", "KWD"), { ok: true, minor: 1005 });
  assert.deepEqual(
    [formatMajor(1250, "USD"), formatMajor(1200, "JPY"), formatMajor(5, "KWD"), formatMajor(-7, "EUR")],
    ["12.50", "1200", "0.005", "-0.07"],
  );
});
