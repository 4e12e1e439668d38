import assert from "node:assert/strict";
import { test } from "node:test";

import { ERROR_CODES, isErrorCode } from "./error-codes";

const SEED_CODES = [
  "invalid_api_key",
  "invalid_token",
  "missing_request_id",
  "missing_ucp_agent",
  "invalid_ucp_agent",
  "invalid_profile_url",
  "missing_idempotency_key",
  "insufficient_trust",
  "insufficient_scope",
  "payment_selection_required",
  "mandate_expired",
  "mandate_scope_mismatch",
  "invalid_request",
  "insufficient_funds",
  "unsupported_coin",
  "insufficient_liquidity",
];

test("every code of seed §7 is in the table", () => {
  for (const code of SEED_CODES) assert.ok(isErrorCode(code), code);
});

test("business outcomes render HTTP 200; protocol errors render 4xx/5xx with a JSON-RPC code", () => {
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    if (spec.kind === "business") {
      assert.equal(spec.httpStatus, 200, code);
    } else {
      assert.ok(spec.httpStatus >= 400 && spec.httpStatus < 600, code);
      assert.ok(spec.mcpCode <= -32000 && spec.mcpCode >= -32700, `${code}: ${spec.mcpCode}`);
    }
    assert.ok(spec.docs.length > 10, `${code} is documented`);
  }
});

test("statuses fixed by the seed and UCP", () => {
  assert.equal(ERROR_CODES.invalid_api_key.httpStatus, 401);
  assert.equal(ERROR_CODES.invalid_token.httpStatus, 401);
  assert.equal(ERROR_CODES.insufficient_scope.httpStatus, 403);
  assert.equal(ERROR_CODES.idempotency_key_reused.httpStatus, 409);
  assert.equal(ERROR_CODES.invalid_profile_url.mcpCode, -32001);
  assert.equal(ERROR_CODES.version_unsupported.httpStatus, 422);
  assert.equal(ERROR_CODES.payment_selection_required.kind, "business");
  assert.equal(ERROR_CODES.not_found.severity, "unrecoverable");
});

test("isErrorCode rejects unknown codes and prototype keys", () => {
  assert.equal(isErrorCode("nope"), false);
  assert.equal(isErrorCode("toString"), false);
});
