import assert from "node:assert/strict";
import { test } from "node:test";

import { ID_PREFIXES, newId } from "./ids";

test("an id is its kind's prefix and 128 random bits as 22 URL-safe characters", () => {
  for (const kind of ["checkout", "order", "idempotency"] as const) {
    const id = newId(kind);
    const prefix = id.slice(0, id.indexOf("_"));
    const random = id.slice(id.indexOf("_") + 1);
    assert.equal(prefix, ID_PREFIXES[kind]);
    assert.match(random, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(Buffer.from(random, "base64url").length, 16);
  }
});

test("ids stay distinct across several refills of the random pool (no bytes used twice)", () => {
  // the pool holds 256 ids' worth: 1,000 ids cross three refills
  const ids = Array.from({ length: 1_000 }, () => newId("order"));
  assert.equal(new Set(ids).size, ids.length);
  // and their random parts do not repeat in pieces either (a slice taken at a wrong offset would overlap)
  const halves = ids.flatMap((id) => {
    const bytes = Buffer.from(id.slice("ord_".length), "base64url");
    return [bytes.subarray(0, 8).toString("hex"), bytes.subarray(8).toString("hex")];
  });
  assert.equal(new Set(halves).size, halves.length);
});
