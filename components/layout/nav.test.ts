import assert from "node:assert/strict";
import { test } from "node:test";

import { isFramePath } from "./nav";

test("isFramePath: every page a signed-in merchant reaches is framed; sign-in and the buyer's pages are not", () => {
  for (const framed of [
    "/admin",
    "/admin/",
    "/admin/stores/new",
    "/admin/stores/corner-shop",
    "/admin/stores/corner-shop/orders/ord_1",
    "/admin/mail",
    "/admin/operator",
    "/admin/invitations/accept",
    "/developers",
  ]) {
    assert.equal(isFramePath(framed), true, framed);
  }
  for (const plain of [
    "/",
    "/admin/sign-in",
    "/admin/sign-up",
    "/admin/forgot-password",
    "/admin/reset-password",
    "/admin/verify-email",
    "/admin/mailbox",
    "/developersx",
    "/account/orders",
  ]) {
    assert.equal(isFramePath(plain), false, plain);
  }
});
