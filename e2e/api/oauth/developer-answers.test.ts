import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { revokeApiKey } from "@/lib/credentials/manage-api-keys";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedStore } from "../../factories";
import { callApp, mcpCall, readJson, rest, TEST_BASE_URL } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import type { ErrorEnvelope } from "../checkout/helpers";

// What a developer meets first: the authorization server's metadata also at the store's base (a compatibility
// path some UCP suites fetch), a refused platform key that says what to do next, and X-Content-Type-Options:
// nosniff on every answer of the service (a JSON answer, an error, a discovery document, the authorize endpoint's
// error page, an MCP answer).

let store: Store;
before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
});
after(closeTestDatabase);

describe("GET /s/:slug/.well-known/oauth-authorization-server (compatibility path)", () => {
  test("is the origin's document byte for byte (issuer {base_url}), cacheable like it", async () => {
    const origin = await callApp("GET", "/.well-known/oauth-authorization-server");
    const perStore = await callApp("GET", `/s/${store.slug}/.well-known/oauth-authorization-server`);
    assert.equal(perStore.status, 200);
    assert.equal(origin.status, 200);
    const [originText, storeText] = [await origin.text(), await perStore.text()];
    assert.equal(storeText, originText);
    assert.equal((JSON.parse(storeText) as { issuer: string }).issuer, TEST_BASE_URL);
    assert.equal(perStore.headers.get("cache-control"), origin.headers.get("cache-control"));
  });

  test("an unknown slug → 404 store_not_found in the UCP envelope", async () => {
    const res = await readJson<ErrorEnvelope>(
      await callApp("GET", "/s/no-such-store/.well-known/oauth-authorization-server"),
    );
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.messages[0]?.code, "store_not_found");
  });
});

describe("a refused X-API-Key says what to do next", () => {
  const cartsWith = (key: string) =>
    rest<ErrorEnvelope>("GET", `/s/${store.slug}/carts/cart_x`, { headers: { "x-api-key": key } });

  test("an unknown key, a malformed one, a merchant key and a revoked one → 401 invalid_api_key naming where keys are issued", async () => {
    const unknown = await cartsWith(`acs_${"A".repeat(12)}_${"b".repeat(43)}`);
    const malformed = await cartsWith("acs_short");
    const merchant = await cartsWith(`acsm_${"A".repeat(12)}_${"b".repeat(43)}`);
    const revokedKey = await seedPlatformKey();
    await revokeApiKey(revokedKey.id);
    const revoked = await cartsWith(revokedKey.key);
    for (const [name, res] of Object.entries({ unknown, malformed, merchant, revoked })) {
      assert.equal(res.status, 401, `${name}: ${res.text}`);
      const message = res.body.messages[0];
      assert.equal(message?.code, "invalid_api_key", name);
      assert.ok(message?.content.includes(`${TEST_BASE_URL}/developers`), `${name}: ${message?.content}`);
      assert.match(message?.content ?? "", /npm run admin -- create-api-key/, name);
    }
    assert.match(unknown.body.messages[0]!.content, /whole key/);
    assert.match(malformed.body.messages[0]!.content, /acs_<12 characters>_<43 characters>/);
    assert.match(merchant.body.messages[0]!.content, /merchant key/);
    assert.match(revoked.body.messages[0]!.content, /has been revoked/);
  });
});

describe("X-Content-Type-Options: nosniff on every answer", () => {
  const nosniff = (res: Response) => res.headers.get("x-content-type-options");

  test("a JSON answer, a JSON error, a discovery document and a 405", async () => {
    const ok = await callApp("POST", "/catalog/search", { body: { query: "mug" } });
    assert.equal(ok.status, 200);
    const refused = await callApp("GET", `/s/${store.slug}/carts/cart_x`, {
      headers: { "x-api-key": "wrong", "request-id": "r-1", "ucp-agent": 'profile="https://a.example/p"' },
    });
    assert.equal(refused.status, 401);
    const profile = await callApp("GET", `/s/${store.slug}/.well-known/ucp`);
    assert.equal(profile.status, 200);
    const notAllowed = await callApp("DELETE", "/.well-known/oauth-authorization-server");
    assert.equal(notAllowed.status, 405);
    for (const res of [ok, refused, profile, notAllowed]) assert.equal(nosniff(res), "nosniff");
  });

  test("an MCP answer", async () => {
    const res = await mcpCall("/mcp", "search_catalog", { catalog: { query: "mug" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  });

  test("the authorization endpoint's redirect to its error page and the token endpoint's RFC 6749 error", async () => {
    const page = await callApp("GET", "/ucp/oauth2/authorize?response_type=code");
    assert.equal(page.status, 303);
    assert.equal(nosniff(page), "nosniff");
    const token = await callApp("POST", "/ucp/oauth2/token", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      rawBody: "grant_type=password",
    });
    assert.equal(token.status, 400);
    assert.equal(nosniff(token), "nosniff");
  });
});
