import assert from "node:assert/strict";
import { test } from "node:test";

import { z } from "zod";

import { AppError, toAppError, toJsonPath } from "./errors";

test("toJsonPath writes RFC 9535 paths", () => {
  assert.equal(toJsonPath(["line_items", 0, "quantity"]), "$.line_items[0].quantity");
  assert.equal(toJsonPath([]), "$");
  assert.equal(toJsonPath(["meta", "ucp-agent"]), "$.meta['ucp-agent']");
  assert.equal(toJsonPath(["a"], "$.cart"), "$.cart.a");
});

test("a ZodError becomes invalid_request with the first issue's path", () => {
  const result = z
    .object({ items: z.array(z.object({ q: z.number().int() })) })
    .safeParse({ items: [{ q: 1.5 }] });
  assert.equal(result.success, false);
  const error = toAppError(result.error);
  assert.equal(error.code, "invalid_request");
  assert.equal(error.path, "$.items[0].q");
  assert.match(error.message, /^\$\.items\[0\]\.q: /);
});

test("Prisma's record-not-found becomes not_found; anything else internal_error, message hidden", () => {
  assert.equal(toAppError(Object.assign(new Error("x"), { code: "P2025" })).code, "not_found");
  const internal = toAppError(new Error("secret database detail"));
  assert.equal(internal.code, "internal_error");
  assert.doesNotMatch(internal.message, /secret/);
});

test("an AppError passes through unchanged", () => {
  const error = new AppError("conflict", "nope", { path: "$.x" });
  assert.equal(toAppError(error), error);
  assert.equal(error.spec.httpStatus, 409);
});
