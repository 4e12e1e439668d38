import assert from "node:assert/strict";
import { test } from "node:test";

import { changeOf, rateChangeOf } from "./figure-change";

test("changeOf: a percentage of the previous figure, signed, whole percents", () => {
  assert.deepEqual(changeOf(15_000, 10_000, "en-US"), { text: "+50%", direction: "up" });
  assert.deepEqual(changeOf(2, 3, "en-US"), { text: "-33%", direction: "down" });
  assert.deepEqual(changeOf(0, 4, "en-US"), { text: "-100%", direction: "down" });
  assert.deepEqual(changeOf(7, 7, "en-US"), { text: "no change", direction: "same" });
  assert.deepEqual(changeOf(0, 0, "en-US"), { text: "no change", direction: "same" });
  assert.deepEqual(changeOf(500, 0, "en-US"), { text: "new this period", direction: "new" });
  assert.match(changeOf(15, 10, "de-DE").text, /^\+50\s%$/);
});

test("rateChangeOf: percentage points, one decimal", () => {
  assert.deepEqual(rateChangeOf(0.75, 0.5, "en-US"), { text: "+25 pts", direction: "up" });
  assert.deepEqual(rateChangeOf(1 / 3, 0.5, "en-US"), { text: "-16.7 pts", direction: "down" });
  assert.deepEqual(rateChangeOf(0.5, 0.5, "en-US"), { text: "no change", direction: "same" });
});
