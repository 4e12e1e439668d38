import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { assertCleanJson, assertJsonDepth, badStringReason } from "./json-guard";

const pathOf = (fn: () => void): string | undefined => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, "invalid_request");
    return error.path ?? "(none)";
  }
  return undefined;
};

test("depth: 64 levels pass, 65 do not; brackets inside strings do not count", () => {
  assert.equal(
    pathOf(() => assertJsonDepth("[".repeat(64) + "]".repeat(64))),
    undefined,
  );
  assert.equal(
    pathOf(() => assertJsonDepth("[".repeat(65) + "]".repeat(65))),
    "(none)",
  );
  assert.equal(
    pathOf(() => assertJsonDepth(`["${"[".repeat(500)}\\"${"{".repeat(500)}"]`)),
    undefined,
  );
});

test("strings: NUL and unpaired surrogates refused, pairs and other text accepted", () => {
  assert.equal(badStringReason("plain ü 😀"), null);
  assert.match(badStringReason("a\u0000") ?? "", /NUL/);
  assert.match(badStringReason("\ud800") ?? "", /surrogate/);
  assert.match(badStringReason("\udc00x") ?? "", /surrogate/);
  assert.match(badStringReason("x\ud83d") ?? "", /surrogate/);
});

test("values: the JSONPath of the first bad string, key or number", () => {
  assert.equal(
    pathOf(() => assertCleanJson({ a: [1, { b: "x\u0000" }] })),
    "$.a[1].b",
  );
  assert.equal(
    pathOf(() => assertCleanJson({ a: { "k\ud800": 1 } })),
    "$.a",
  );
  assert.equal(
    pathOf(() => assertCleanJson(JSON.parse('{"n":[1e999]}'))),
    "$.n[0]",
  );
  assert.equal(
    pathOf(() => assertCleanJson({ "odd key": "\udfff" })),
    "$['odd key']",
  );
  assert.equal(
    pathOf(() => assertCleanJson({ ok: ["😀", 1.5, null, true] })),
    undefined,
  );
});
