import assert from "node:assert/strict";
import { test } from "node:test";

import { splitPosition } from "./location-position";

test("a position pasted from a map app splits into latitude and longitude", () => {
  assert.deepEqual(splitPosition("37.7749, -122.4194"), { latitude: "37.7749", longitude: "-122.4194" });
  assert.deepEqual(splitPosition(" (48.8584,2.2945) "), { latitude: "48.8584", longitude: "2.2945" });
  assert.deepEqual(splitPosition("+1.5 -2"), { latitude: "1.5", longitude: "-2" });
});

test("anything but two numbers is not a position", () => {
  for (const text of [
    "",
    "37.7749",
    "Main Street 1",
    "37.7749, -122.4194, 10",
    "1e3, 2",
    `${"1".repeat(101)}, 2`,
  ]) {
    assert.equal(splitPosition(text), null, text);
  }
});
