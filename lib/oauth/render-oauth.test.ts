import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { oauthErrorResponse, renderOAuthError } from "./render-oauth";

const read = async (res: Response) => ({
  status: res.status,
  headers: res.headers,
  body: (await res.json()) as unknown,
});

test("RFC 6749 §5.2 body and statuses, never cached", async () => {
  const res = await read(oauthErrorResponse("invalid_grant", "code already used"));
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: "invalid_grant", error_description: "code already used" });
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal((await read(oauthErrorResponse("invalid_client", "x"))).status, 401);
  assert.equal((await read(oauthErrorResponse("insufficient_scope", "x"))).status, 403);
});

test("invalid_client carries a Basic challenge; invalid_token a Bearer one", async () => {
  assert.match(oauthErrorResponse("invalid_client", "x").headers.get("www-authenticate") ?? "", /^Basic /);
  assert.equal(
    oauthErrorResponse("invalid_token", "x").headers.get("www-authenticate"),
    'Bearer error="invalid_token"',
  );
});

test("AppErrors map onto registered OAuth codes; unknown ones become server_error with no detail", async () => {
  const bad = await read(renderOAuthError(new AppError("invalid_request", "grant_type is required"), "r1"));
  assert.deepEqual(bad.body, { error: "invalid_request", error_description: "grant_type is required" });
  assert.equal(bad.headers.get("request-id"), "r1");
  const internal = await read(renderOAuthError(new AppError("internal_error", "db password is hunter2")));
  assert.equal(internal.status, 500);
  assert.deepEqual(internal.body, { error: "server_error", error_description: "Internal error" });
  const busy = await read(
    renderOAuthError(
      new AppError("rate_limited", "slow down", {
        headers: { "Retry-After": "3" },
        details: { retry_after: 3 },
      }),
    ),
  );
  assert.equal(busy.status, 429);
  assert.equal(busy.headers.get("retry-after"), "3");
  assert.deepEqual(busy.body, {
    error: "temporarily_unavailable",
    error_description: "slow down",
    retry_after: 3,
  });
});

test("the authorization server's codes render as their RFC 6749 names and statuses", async () => {
  const cases: [AppError["code"], string, number][] = [
    ["invalid_client", "invalid_client", 401],
    ["invalid_grant", "invalid_grant", 400],
    ["unsupported_grant_type", "unsupported_grant_type", 400],
    ["invalid_scope", "invalid_scope", 400],
    ["unauthorized_client", "unauthorized_client", 400],
    ["unsupported_response_type", "unsupported_response_type", 400],
    ["access_denied", "access_denied", 400],
  ];
  for (const [code, error, status] of cases) {
    const res = await read(renderOAuthError(new AppError(code, `because ${code}`)));
    assert.equal(res.status, status, code);
    assert.deepEqual(res.body, { error, error_description: `because ${code}` }, code);
  }
});
