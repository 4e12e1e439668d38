import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";

import { createOAuthClient } from "@/lib/oauth/create-oauth-client";
import { CLIENT_ADDRESS_HEADER, clientAddressStamp } from "@/lib/rate-limit/client-address";

import { seedPlatformKey } from "../../factories";
import { rest } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { linkAgent, newBuyer, postToken } from "../../helpers/oauth";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Failed authentication is throttled on its own, per source address and per credential id: wrong API keys,
// bearers, refresh tokens, authorization codes and client secrets get their 401/400 only up to the quota, then
// 429 rate_limited (with Retry-After and retry_after) before the guess is even checked, while the same credentials
// from another address are unaffected. Bearer calls have their budget per (buyer, agent).

const FAILURES = 4;
const CREDENTIAL_FAILURES = 6;
const BEARER = 6;

let cimd: CimdServer;

before(async () => {
  process.env.RATE_LIMIT_AUTH_FAILURES = String(FAILURES);
  process.env.RATE_LIMIT_CREDENTIAL_FAILURES = String(CREDENTIAL_FAILURES);
  process.env.RATE_LIMIT_BEARER = String(BEARER);
  await prepareTestDatabase();
  cimd = await startCimdServer();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

let nextAddress = 1;
/** A fresh client address per call site, so the tests' budgets never mix. */
const newAddress = () => `198.18.0.${nextAddress++}`;
const from = (address: string, extra: Record<string, string> = {}) => ({
  [CLIENT_ADDRESS_HEADER]: clientAddressStamp(address),
  ...extra,
});
const search = (headers: Record<string, string>) =>
  rest("POST", "/catalog/search", { headers, body: { query: "mug" } });
const wrongKey = () =>
  `acs_${randomBytes(6).toString("hex")}_${randomBytes(32).toString("base64url").slice(0, 43)}`;

const assertRateLimited = (
  response: { status: number; headers: Headers; text: string },
  retryAfter: number,
) => {
  assert.equal(response.status, 429, response.text);
  assert.equal(Number(response.headers.get("retry-after")), retryAfter);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry_after ${retryAfter}`);
};

test("wrong API keys: 401 up to the quota, then 429 before checking, even for a correct key from that address", async () => {
  const attacker = newAddress();
  for (let i = 0; i < FAILURES; i++) {
    const wrong = await search(from(attacker, { "x-api-key": wrongKey() }));
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal((wrong.body as { code: string }).code, "invalid_api_key");
  }
  const refused = await search(from(attacker, { "x-api-key": wrongKey() }));
  const body = refused.body as { code: string; retry_after: number };
  assert.equal(body.code, "rate_limited");
  assertRateLimited(refused, body.retry_after);
  assert.match(refused.headers.get("ratelimit-policy") ?? "", /^"auth-failures";q=4;w=60$/);

  const { key } = await seedPlatformKey();
  // not even checked from the spent address…
  assert.equal((await search(from(attacker, { "x-api-key": key }))).status, 429);
  // …while the correct key from another source is unaffected, and the address's anonymous calls go on
  const elsewhere = await search(from(newAddress(), { "x-api-key": key }));
  assert.equal(elsewhere.status, 200, elsewhere.text);
  assert.equal((await search(from(attacker))).status, 200);
});

test("per credential id: wrong secrets under one key's prefix from many addresses lock that prefix only", async () => {
  const target = await seedPlatformKey();
  const other = await seedPlatformKey();
  const prefix = target.key.split("_")[1]!;
  const guess = () => `acs_${prefix}_${randomBytes(32).toString("base64url").slice(0, 43)}`;
  // two failures per address: below the per-address quota, so only the per-credential counter can refuse
  for (let i = 0; i < CREDENTIAL_FAILURES / 2; i++) {
    const address = newAddress();
    for (let j = 0; j < 2; j++) {
      assert.equal((await search(from(address, { "x-api-key": guess() }))).status, 401);
    }
  }
  const refused = await search(from(newAddress(), { "x-api-key": guess() }));
  assertRateLimited(refused, (refused.body as { retry_after: number }).retry_after);
  assert.match(refused.headers.get("ratelimit-policy") ?? "", /^"auth-failures-credential";q=6;w=60$/);
  const unrelated = await search(from(newAddress(), { "x-api-key": other.key }));
  assert.equal(unrelated.status, 200, unrelated.text);
});

test("wrong bearers: 401 invalid_token up to the quota, then 429", async () => {
  const attacker = newAddress();
  for (let i = 0; i < FAILURES; i++) {
    const wrong = await search(
      from(attacker, { authorization: `Bearer eyJ${randomBytes(24).toString("base64url")}` }),
    );
    assert.equal(wrong.status, 401, wrong.text);
    assert.match(wrong.headers.get("www-authenticate") ?? "", /invalid_token/);
  }
  const refused = await search(from(attacker, { authorization: "Bearer eyJnope" }));
  assertRateLimited(refused, (refused.body as { retry_after: number }).retry_after);
});

const oauthFlood = async (
  address: string,
  form: () => Record<string, string>,
  expected: [number, string],
) => {
  for (let i = 0; i < FAILURES; i++) {
    const wrong = await postToken(form(), from(address));
    assert.equal(wrong.status, expected[0], await wrong.text());
  }
  const refused = await postToken(form(), from(address));
  assert.equal(refused.status, 429);
  const body = (await refused.json()) as { error: string; error_description: string; retry_after: number };
  assert.equal(body.error, "temporarily_unavailable");
  assert.match(body.error_description, /failed authentications/);
  assert.equal(body.retry_after, Number(refused.headers.get("retry-after")));
  assert.ok(body.retry_after >= 1);
};

test("OAuth: wrong refresh tokens, authorization codes and client secrets each end in 429 in the RFC 6749 body", async () => {
  const publicClient = "https://agent.example/cimd.json";
  await oauthFlood(
    newAddress(),
    () => ({
      grant_type: "refresh_token",
      client_id: publicClient,
      refresh_token: `ort_${randomBytes(32).toString("base64url")}`,
    }),
    [400, "invalid_grant"],
  );
  await oauthFlood(
    newAddress(),
    () => ({
      grant_type: "authorization_code",
      client_id: publicClient,
      code: `oac_${randomBytes(32).toString("base64url")}`,
      code_verifier: randomBytes(40).toString("base64url"),
      redirect_uri: "https://agent.example/callback",
    }),
    [400, "invalid_grant"],
  );
  const platform = await createOAuthClient({ name: "rate-limit test client", scopes: ["orders:read"] });
  await oauthFlood(
    newAddress(),
    () => ({
      grant_type: "client_credentials",
      client_id: platform.clientId,
      client_secret: `ocs_${randomBytes(32).toString("base64url")}`,
    }),
    [401, "invalid_client"],
  );
  // the right secret from another address still gets its token
  const ok = await postToken(
    { grant_type: "client_credentials", client_id: platform.clientId, client_secret: platform.clientSecret },
    from(newAddress()),
  );
  assert.equal(ok.status, 200, await ok.text());
});

test("bearer calls: one budget per (buyer, agent); another agent of the same buyer is unaffected", async () => {
  const register = (path: string) => {
    const redirectUri = cimd.url(`${path}/callback`);
    const clientId = cimd.document(path, {
      client_name: path,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    return { clientId, redirectUri };
  };
  const buyer = await newBuyer();
  const first = await linkAgent({ ...register("/agent-one"), scope: "purchase:complete", buyerId: buyer.id });
  const second = await linkAgent({
    ...register("/agent-two"),
    scope: "purchase:complete",
    buyerId: buyer.id,
  });
  const address = newAddress();
  const bearer = (token: string) => from(address, { authorization: `Bearer ${token}` });
  for (let i = 1; i <= BEARER; i++) {
    const ok = await search(bearer(first.tokens.access_token));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers.get("ratelimit")?.startsWith(`"bearer";r=${BEARER - i};`), true);
  }
  const refused = await search(bearer(first.tokens.access_token));
  assertRateLimited(refused, (refused.body as { retry_after: number }).retry_after);
  const otherAgent = await search(bearer(second.tokens.access_token));
  assert.equal(otherAgent.status, 200, otherAgent.text);
  assert.equal(otherAgent.headers.get("ratelimit-policy"), `"bearer";q=${BEARER};w=60`);
});

test("signatures that do not verify count too: 401 up to the quota, then 429", async () => {
  const attacker = newAddress();
  const forged = () =>
    search(
      from(attacker, {
        "signature-input": `sig1=("@method" "@authority" "@path");created=${Math.floor(Date.now() / 1000)};keyid="nope"`,
        signature: `sig1=:${randomBytes(64).toString("base64")}:`,
        // a correct digest of the body, so only the signature itself is wrong
        "content-digest": `sha-256=:${createHash("sha256")
          .update(JSON.stringify({ query: "mug" }))
          .digest("base64")}:`,
      }),
    );
  for (let i = 0; i < FAILURES; i++) {
    const wrong = await forged();
    assert.equal(wrong.status, 401, wrong.text);
    assert.match((wrong.body as { code: string }).code, /^(signature_invalid|key_not_found)$/);
  }
  const refused = await forged();
  assertRateLimited(refused, (refused.body as { retry_after: number }).retry_after);
  // unsigned, the address's anonymous calls go on
  assert.equal((await search(from(attacker))).status, 200);
});
