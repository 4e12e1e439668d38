import assert from "node:assert/strict";
import { test } from "node:test";

import type * as scopeModule from "./request-scope";
import { pagePathForLog, requestScope } from "./request-scope";

test("a page path is logged without its link token or its query", () => {
  assert.equal(pagePathForLog("/s/acme/pay/tok_secret123?result=paid"), "/s/acme/pay/[token]");
  assert.equal(pagePathForLog("/s/acme/pay/tok_secret123/submit"), "/s/acme/pay/[token]/submit");
  assert.equal(pagePathForLog("/s/acme/cart/ct_abc"), "/s/acme/cart/[token]");
  assert.equal(pagePathForLog("/admin/reset-password?token=abc"), "/admin/reset-password");
  assert.equal(pagePathForLog("/account/orders"), "/account/orders");
  assert.equal(pagePathForLog(`/${"x".repeat(500)}`).length, 200);
});

test("the scope is one store for every copy of the module (globalThis)", async () => {
  const again = (await import(`./request-scope.ts?copy=${Date.now()}`)) as typeof scopeModule;
  assert.equal(again.requestScope, requestScope);
  const scope = { routed: false };
  await requestScope.run(scope, async () => {
    const seen = again.requestScope.getStore();
    if (seen) seen.routed = true;
  });
  assert.equal(scope.routed, true);
});
