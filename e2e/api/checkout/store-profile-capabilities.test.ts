import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { seedStore } from "../../factories";
import { callApp, readJson } from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The store profile advertises what issue #4 serves: checkout with its fulfillment, discount and buyer-consent
// extensions (each naming its parent in `extends`), and order; and nothing the store does not serve.

type Profile = {
  ucp: {
    capabilities: Record<string, { version: string; spec: string; schema: string; extends?: unknown }[]>;
  };
};

before(prepareTestDatabase);
after(closeTestDatabase);

test("GET /s/:slug/.well-known/ucp lists checkout, its extensions with extends, and order; schema-valid", async () => {
  const store = await seedStore();
  const res = await readJson<Profile>(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
  assert.equal(res.status, 200);
  assertUcpSchema("discovery/profile.json#/$defs/business_profile", res.body);
  const caps = res.body.ucp.capabilities;
  const extendsOf = (name: string) => caps[name]?.[0]?.extends;
  assert.equal(
    caps["dev.ucp.shopping.checkout"]?.[0]?.schema,
    "https://ucp.dev/2026-04-08/schemas/shopping/checkout.json",
  );
  assert.equal(
    caps["dev.ucp.shopping.order"]?.[0]?.schema,
    "https://ucp.dev/2026-04-08/schemas/shopping/order.json",
  );
  assert.equal(extendsOf("dev.ucp.shopping.fulfillment"), "dev.ucp.shopping.checkout");
  assert.equal(extendsOf("dev.ucp.shopping.buyer_consent"), "dev.ucp.shopping.checkout");
  assert.deepEqual(extendsOf("dev.ucp.shopping.discount"), [
    "dev.ucp.shopping.checkout",
    "dev.ucp.shopping.cart",
  ]);
  // issue #5 advertises AP2 mandates (an extension of checkout)
  assert.equal(extendsOf("dev.ucp.shopping.ap2_mandate"), "dev.ucp.shopping.checkout");
  // identity linking (the OAuth server on this origin): no store operation as a whole needs a buyer token, so no
  // scope gates one; the checkout scope is accepted by the authorization server (its optional layer)
  const linking = caps["dev.ucp.common.identity_linking"]?.[0] as
    { config?: { scopes?: object } } | undefined;
  assertUcpSchema(
    "common/identity_linking.json#/$defs/dev.ucp.common.identity_linking/business_schema",
    linking,
  );
  assert.deepEqual(linking?.config, { scopes: {} });
  const as = await readJson<{ scopes_supported: string[] }>(
    await callApp("GET", "/.well-known/oauth-authorization-server"),
  );
  assert.ok(as.body.scopes_supported.includes("dev.ucp.shopping.checkout:manage"));
});
