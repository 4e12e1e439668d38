import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { assertCleanTarget } from "./request-target";

const refusal = (target: string): string | null => {
  try {
    assertCleanTarget(target);
    return null;
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, "invalid_request");
    return error.path ?? "";
  }
};

test("clean targets pass: UTF-8 escapes, plus signs, empty query values", () => {
  for (const target of ["/", "/s/shop/orders/ord_1", "/x/%C3%BC?q=a+b&c=&d", "/a?cursor=eyJ9%3D"]) {
    assert.equal(refusal(target), null, target);
  }
});

test("invalid percent-encoding, NUL and control characters are refused, naming the part", () => {
  assert.equal(refusal("/s/shop/orders/%FF"), "path");
  assert.equal(refusal("/s/shop/orders/a%00"), "path");
  assert.equal(refusal("/s/shop/orders/%E0%80"), "path");
  assert.equal(refusal("/a?cursor=%FF"), "query:cursor");
  assert.equal(refusal("/a?limit=%0A"), "query:limit");
  assert.equal(refusal("/a?%ED%A0%80=1"), "query");
});
