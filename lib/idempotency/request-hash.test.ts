import assert from "node:assert/strict";
import { test } from "node:test";

import { requestHash, scopeHash } from "./request-hash";

test("requestHash: key order and whitespace do not matter (JCS)", () => {
  assert.equal(
    requestHash("create_cart", { line_items: [{ item: { id: "v1" }, quantity: 1 }], b: 2, a: 1 }),
    requestHash("create_cart", { a: 1, b: 2, line_items: [{ quantity: 1, item: { id: "v1" } }] }),
  );
});

test("requestHash: a different value, array order or operation changes the fingerprint", () => {
  const base = requestHash("create_cart", { items: [1, 2] });
  assert.notEqual(base, requestHash("create_cart", { items: [2, 1] }));
  assert.notEqual(base, requestHash("create_cart", { items: [1, 3] }));
  assert.notEqual(base, requestHash("update_cart", { items: [1, 2] }));
});

test("scopeHash: each part of the scope separates records", () => {
  const s = { principalId: "key:a", storeSlug: "shop", operation: "create_cart", key: "k1" };
  const h = scopeHash(s);
  assert.equal(h, scopeHash({ ...s }));
  for (const field of ["principalId", "storeSlug", "operation", "key"] as const) {
    assert.notEqual(h, scopeHash({ ...s, [field]: `${s[field]}x` }), field);
  }
  // no ambiguity from concatenation: ("ab","c") ≠ ("a","bc")
  assert.notEqual(
    scopeHash({ ...s, principalId: "ab", storeSlug: "c" }),
    scopeHash({ ...s, principalId: "a", storeSlug: "bc" }),
  );
});
