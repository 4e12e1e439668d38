import assert from "node:assert/strict";
import { test } from "node:test";

import { distanceMeters } from "./distance";

test("distanceMeters: Boulder → Denver is about 39 km; a point to itself is 0", () => {
  const boulder = { latitudeE6: 40_018_900, longitudeE6: -105_275_800 };
  const denver = { latitudeE6: 39_752_900, longitudeE6: -104_999_900 };
  const d = distanceMeters(boulder, denver);
  assert.ok(d > 37_000 && d < 39_000, `got ${d}`);
  assert.equal(distanceMeters(boulder, boulder), 0);
  assert.ok(Number.isInteger(d));
});

test("distanceMeters: one degree of latitude is about 111.2 km", () => {
  const d = distanceMeters({ latitudeE6: 0, longitudeE6: 0 }, { latitudeE6: 1_000_000, longitudeE6: 0 });
  assert.ok(Math.abs(d - 111_195) < 5, `got ${d}`);
});
