import assert from "node:assert/strict";
import { test } from "node:test";

import { allocateProportionally, percentOfFloor, percentOfHalfUp } from "./money";

test("percentOfFloor rounds down; percentOfHalfUp rounds .5 up", () => {
  assert.equal(percentOfFloor(13449, 1000), 1344); // 1344.9
  assert.equal(percentOfHalfUp(2900, 825), 239); // 239.25
  assert.equal(percentOfHalfUp(14000, 825), 1155); // 1155.0
  assert.equal(percentOfHalfUp(200, 25), 1); // 0.5 → 1
  assert.equal(percentOfHalfUp(199, 25), 0); // 0.4975 → 0
});

test("no precision loss beyond 2^53 in the intermediate product", () => {
  const big = 2_000_000_000_000; // 2e12 minor units
  assert.equal(percentOfHalfUp(big, 9999), 1_999_800_000_000);
  assert.equal(percentOfFloor(big + 1, 3333), 666_600_000_000);
});

test("allocateProportionally: integer parts that always sum to the amount, largest remainder first", () => {
  assert.deepEqual(allocateProportionally(100, [1, 1, 1]), [34, 33, 33]);
  assert.deepEqual(allocateProportionally(1344, [11999, 1450]), [1199, 145]);
  assert.deepEqual(allocateProportionally(7, [0, 0]), [7, 0]);
  assert.deepEqual(allocateProportionally(0, [5, 5]), [0, 0]);
  for (const [amount, weights] of [
    [999, [3, 7, 11, 13]],
    [1, [1, 1, 1, 1]],
    [123457, [99999, 1, 50000]],
  ] as const) {
    const parts = allocateProportionally(amount, weights);
    assert.equal(
      parts.reduce((a, b) => a + b, 0),
      amount,
    );
    assert.ok(parts.every((p) => Number.isInteger(p) && p >= 0));
  }
});
