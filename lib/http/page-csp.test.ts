import assert from "node:assert/strict";
import { test } from "node:test";

import { pageCsp, pageKindOf } from "./page-csp";

const directive = (csp: string, name: string) =>
  csp
    .split("; ")
    .find((d) => d.startsWith(`${name} `))
    ?.split(" ")
    .slice(1);

test("pageKindOf: consent, the hosted payment page (not its submit route), any other page", () => {
  assert.equal(pageKindOf("/oauth/consent"), "consent");
  assert.equal(pageKindOf("/s/summit/pay/abc"), "payment");
  assert.equal(pageKindOf("/s/summit/pay/abc/submit"), "page");
  assert.equal(pageKindOf("/s/summit/cart/ct_x"), "page");
  assert.equal(pageKindOf("/account/orders"), "page");
});

test("pageCsp: scripts only with the nonce, never framed, no eval outside dev", () => {
  const csp = pageCsp({ kind: "page", nonce: "abc", dev: false });
  assert.deepEqual(directive(csp, "script-src"), ["'self'", "'nonce-abc'", "'strict-dynamic'"]);
  assert.deepEqual(directive(csp, "frame-ancestors"), ["'none'"]);
  assert.deepEqual(directive(csp, "frame-src"), ["'none'"]);
  assert.deepEqual(directive(csp, "form-action"), ["'self'"]);
  assert.deepEqual(directive(csp, "connect-src"), ["'self'"]);
  assert.ok(!csp.includes("unsafe-eval"));
  assert.ok(pageCsp({ kind: "page", nonce: "abc", dev: true }).includes("'unsafe-eval'"));
});

test("pageCsp: Stripe's origins and the configured Stripe API only on the payment page", () => {
  const pay = pageCsp({ kind: "payment", nonce: "n", dev: false, stripeApiUrl: "http://127.0.0.1:4010/" });
  assert.ok(directive(pay, "script-src")?.includes("https://js.stripe.com"));
  assert.deepEqual(directive(pay, "frame-src"), ["https://js.stripe.com", "https://hooks.stripe.com"]);
  assert.deepEqual(directive(pay, "connect-src"), [
    "'self'",
    "https://api.stripe.com",
    "https://js.stripe.com",
    "http://127.0.0.1:4010",
  ]);
  assert.deepEqual(directive(pay, "frame-ancestors"), ["'none'"]);
  const defaultApi = pageCsp({
    kind: "payment",
    nonce: "n",
    dev: false,
    stripeApiUrl: "https://api.stripe.com",
  });
  assert.equal(directive(defaultApi, "connect-src")?.filter((o) => o === "https://api.stripe.com").length, 1);
  const consent = pageCsp({ kind: "consent", nonce: "n", dev: false, stripeApiUrl: "http://127.0.0.1:4010" });
  assert.ok(!consent.includes("stripe"));
  // approving redirects the browser to the agent: no form-action on consent
  assert.equal(directive(consent, "form-action"), undefined);
  assert.deepEqual(directive(consent, "frame-ancestors"), ["'none'"]);
});
