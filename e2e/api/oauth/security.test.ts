import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import * as oauth from "oauth4webapi";

import { type AppError } from "@/lib/core/errors";
import { assertPermission } from "@/lib/credentials/principal";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import { createOAuthClient } from "@/lib/oauth/create-oauth-client";
import { decideAuthorization } from "@/lib/oauth/decide-authorization";
import { getAccessTokenKey } from "@/lib/oauth/server-keys";
import { issueAccessToken } from "@/lib/oauth/tokens";

import { seedPlatformKey, seedStore } from "../../factories";
import { callApp, envelopeHeaders, readJson, TEST_BASE_URL } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import {
  authorize,
  discover,
  errorPageOf,
  linkAgent,
  newBuyer,
  OAUTH_OPTIONS,
  pendingIdFrom,
  postToken,
} from "../../helpers/oauth";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The RFC 9700 checklist of issue #6 as tests, plus the token endpoint's and the bearer check's bad input.

let cimd: CimdServer;
let as: oauth.AuthorizationServer;
before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  as = await discover();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

let n = 0;
const agent = () => {
  const path = `/sec-${++n}`;
  const redirectUri = cimd.url(`${path}/cb`);
  const clientId = cimd.document(path, { client_name: `Agent ${n}`, redirect_uris: [redirectUri] });
  return { clientId, redirectUri };
};

const pkce = async () => {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
};

const baseParams = async (clientId: string, redirectUri: string) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: redirectUri,
  state: "st-123",
  code_challenge: (await pkce()).challenge,
  code_challenge_method: "S256",
});

/** The error a redirect carries, with its state and iss. */
const redirectError = (res: Response, redirectUri: string) => {
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get("location") ?? "");
  assert.equal(`${location.origin}${location.pathname}`, redirectUri, "back to the client, not to consent");
  return {
    error: location.searchParams.get("error"),
    state: location.searchParams.get("state"),
    iss: location.searchParams.get("iss"),
  };
};

const accountStatus = async (token: string) =>
  (
    await callApp("POST", "/account/mcp", {
      headers: { authorization: `Bearer ${token}` },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    })
  ).status;

const exchange = (clientId: string, redirectUri: string, code: string, verifier?: string) =>
  postToken({
    grant_type: "authorization_code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
  });

/** Authorize + approve; returns the code and its verifier without exchanging it. */
const approvedCode = async (
  clientId: string,
  redirectUri: string,
  scope = "purchase:complete offline_access",
) => {
  const { verifier, challenge } = await pkce();
  const res = await authorize(as, {
    ...(await baseParams(clientId, redirectUri)),
    scope,
    code_challenge: challenge,
  });
  const buyer = await newBuyer();
  const { location } = await decideAuthorization({
    requestId: pendingIdFrom(res),
    buyerId: buyer.id,
    approve: true,
    baseUrl: TEST_BASE_URL,
  });
  return { code: new URL(location).searchParams.get("code")!, verifier, buyerId: buyer.id };
};

describe("RFC 9700 checklist", () => {
  test("GET /ucp/oauth2/authorize — plain PKCE is refused (redirected error, never a consent page)", async () => {
    const { clientId, redirectUri } = agent();
    const res = await authorize(as, {
      ...(await baseParams(clientId, redirectUri)),
      code_challenge_method: "plain",
    });
    const err = redirectError(res, redirectUri);
    assert.equal(err.error, "invalid_request");
    assert.equal(err.state, "st-123");
    assert.equal(err.iss, TEST_BASE_URL);
    const missing = await authorize(as, {
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      state: "s",
    });
    assert.equal(redirectError(missing, redirectUri).error, "invalid_request", "PKCE is mandatory");
    const longState = await authorize(as, {
      ...(await baseParams(clientId, redirectUri)),
      state: "s".repeat(513),
    });
    assert.equal(redirectError(longState, redirectUri).error, "invalid_request", "state is bounded");
  });

  test("POST /ucp/oauth2/token — a missing or wrong code_verifier is refused", async () => {
    const { clientId, redirectUri } = agent();
    const { code } = await approvedCode(clientId, redirectUri);
    const missing = await readJson(await exchange(clientId, redirectUri, code));
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error, "invalid_request");
    const wrong = await readJson(
      await exchange(clientId, redirectUri, code, oauth.generateRandomCodeVerifier()),
    );
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, "invalid_grant");
  });

  test("POST /ucp/oauth2/token — a replayed code is refused and revokes the tokens it issued", async () => {
    const { clientId, redirectUri } = agent();
    const { code, verifier } = await approvedCode(clientId, redirectUri);
    const first = await readJson<{ access_token: string; refresh_token: string }>(
      await exchange(clientId, redirectUri, code, verifier),
    );
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("cache-control"), "no-store");
    assert.equal(await accountStatus(first.body.access_token), 200);
    const replay = await readJson(await exchange(clientId, redirectUri, code, verifier));
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, "invalid_grant");
    assert.equal(
      await accountStatus(first.body.access_token),
      401,
      "the first exchange's access token is dead",
    );
    const refresh = await readJson(
      await postToken({
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: first.body.refresh_token,
      }),
    );
    assert.equal(refresh.body.error, "invalid_grant", "and so is its refresh token");
  });

  test("a code is bound to its client and its redirect_uri", async () => {
    const { clientId, redirectUri } = agent();
    const other = agent();
    const { code, verifier } = await approvedCode(clientId, redirectUri);
    const otherClient = await readJson(await exchange(other.clientId, redirectUri, code, verifier));
    assert.equal(otherClient.body.error, "invalid_grant");
    const { code: code2, verifier: v2 } = await approvedCode(clientId, redirectUri);
    const otherUri = await readJson(await exchange(clientId, `${redirectUri}/x`, code2, v2));
    assert.equal(otherUri.body.error, "invalid_grant");
  });

  test("GET /ucp/oauth2/authorize — a redirect_uri not exactly registered gets our error page, never a redirect to it", async () => {
    const { clientId, redirectUri } = agent();
    for (const bad of [
      `${redirectUri}/extra`,
      `${redirectUri}?x=1`,
      "https://attacker.example/cb",
      `${redirectUri}#f`,
    ]) {
      const res = await authorize(as, { ...(await baseParams(clientId, redirectUri)), redirect_uri: bad });
      const shown = await errorPageOf(res);
      assert.deepEqual(
        shown,
        {
          error: "invalid_request",
          description: "redirect_uri is not one of the client's registered redirect_uris",
        },
        bad,
      );
    }
    // RFC 8252 §7.3 / UCP: a registered loopback IP redirect matches on any port
    const port = await authorize(as, {
      ...(await baseParams(clientId, redirectUri)),
      redirect_uri: redirectUri.replace(/:\d+\//, ":1/"),
    });
    assert.equal(port.status, 303);
    assert.match(port.headers.get("location") ?? "", /\/oauth\/consent\?request=/);
  });

  test("POST /ucp/oauth2/token — reusing a rotated refresh token revokes the whole family", async () => {
    const { clientId, redirectUri } = agent();
    const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete offline_access" });
    const rt1 = linked.tokens.refresh_token!;
    const second = await readJson<{ access_token: string; refresh_token: string }>(
      await postToken({ grant_type: "refresh_token", client_id: clientId, refresh_token: rt1 }),
    );
    assert.equal(second.status, 200);
    assert.equal(await accountStatus(second.body.access_token), 200);
    const reuse = await readJson(
      await postToken({ grant_type: "refresh_token", client_id: clientId, refresh_token: rt1 }),
    );
    assert.equal(reuse.body.error, "invalid_grant");
    const rt2 = await readJson(
      await postToken({
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: second.body.refresh_token,
      }),
    );
    assert.equal(rt2.body.error, "invalid_grant", "the newest refresh token died with the family");
    assert.equal(await accountStatus(second.body.access_token), 401);
    assert.equal(await accountStatus(linked.tokens.access_token), 401);
  });

  test("the consent page's deny → access_denied with state and iss", async () => {
    const { clientId, redirectUri } = agent();
    const res = await authorize(as, await baseParams(clientId, redirectUri));
    const { location } = await decideAuthorization({
      requestId: pendingIdFrom(res),
      buyerId: (await newBuyer()).id,
      approve: false,
      baseUrl: TEST_BASE_URL,
    });
    const url = new URL(location);
    assert.equal(url.searchParams.get("error"), "access_denied");
    assert.equal(url.searchParams.get("state"), "st-123");
    assert.equal(url.searchParams.get("iss"), TEST_BASE_URL);
    assert.equal(url.searchParams.get("code"), null);
    // a request is answered once
    await assert.rejects(
      decideAuthorization({
        requestId: pendingIdFrom(res),
        buyerId: (await newBuyer()).id,
        approve: true,
        baseUrl: TEST_BASE_URL,
      }),
      (e: AppError) => e.code === "invalid_request",
    );
  });

  test("no implicit grant and no password grant", async () => {
    const { clientId, redirectUri } = agent();
    const implicit = await authorize(as, {
      ...(await baseParams(clientId, redirectUri)),
      response_type: "token",
    });
    const err = redirectError(implicit, redirectUri);
    assert.equal(err.error, "unsupported_response_type");
    assert.doesNotMatch(implicit.headers.get("location") ?? "", /access_token|#/);
    const password = await readJson(
      await postToken({ grant_type: "password", client_id: clientId, username: "u", password: "p" }),
    );
    assert.equal(password.status, 400);
    assert.equal(password.body.error, "unsupported_grant_type");
  });
});

describe("token endpoint bad input", () => {
  test("unknown grant types, JSON bodies, missing grant_type, repeated parameters, unknown scopes", async () => {
    const { clientId, redirectUri } = agent();
    assert.equal(
      (await readJson(await postToken({ grant_type: "urn:x" }))).body.error,
      "unsupported_grant_type",
    );
    const json = await readJson(
      await callApp("POST", "/ucp/oauth2/token", { body: { grant_type: "client_credentials" } }),
    );
    assert.equal(json.status, 400);
    assert.equal(json.body.error, "invalid_request");
    assert.equal((await readJson(await postToken({ client_id: clientId }))).body.error, "invalid_request");
    const repeated = await readJson(
      await callApp("POST", "/ucp/oauth2/token", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        rawBody: "grant_type=refresh_token&refresh_token=a&refresh_token=b",
      }),
    );
    assert.equal(repeated.body.error, "invalid_request");
    const scope = await authorize(as, { ...(await baseParams(clientId, redirectUri)), scope: "orders:read" });
    assert.equal(redirectError(scope, redirectUri).error, "invalid_scope");
    const unknownCode = await readJson(
      await exchange(clientId, redirectUri, "oac_nope", oauth.generateRandomCodeVerifier()),
    );
    assert.equal(unknownCode.body.error, "invalid_grant");
  });

  test("client_credentials: a registered platform client with its secret (Basic or body); wrong secrets are invalid_client", async () => {
    const created = await createOAuthClient({
      name: "Platform P",
      scopes: ["orders:read", "purchase:complete"],
    });
    const client: oauth.Client = { client_id: created.clientId };
    for (const auth of [
      oauth.ClientSecretBasic(created.clientSecret),
      oauth.ClientSecretPost(created.clientSecret),
    ]) {
      const tokens = await oauth.processClientCredentialsResponse(
        as,
        client,
        await oauth.clientCredentialsGrantRequest(
          as,
          client,
          auth,
          new URLSearchParams({ scope: "orders:read" }),
          OAUTH_OPTIONS,
        ),
      );
      assert.equal(tokens.scope, "orders:read");
      assert.equal(tokens.refresh_token, undefined);
      const principal = await resolvePrincipal({
        apiKey: null,
        authorization: `Bearer ${tokens.access_token}`,
      });
      assert.equal(principal.kind, "platform");
      assert.deepEqual(principal.kind === "platform" ? principal.permissions : [], ["orders:read"]);
      // a platform token is not a buyer token: the account surface refuses it
      assert.equal(await accountStatus(tokens.access_token), 401);
    }
    const wrong = await readJson(
      await postToken({
        grant_type: "client_credentials",
        client_id: created.clientId,
        client_secret: "ocs_wrong",
      }),
    );
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, "invalid_client");
    assert.match(wrong.headers.get("www-authenticate") ?? "", /^Basic /);
    const tooMuch = await readJson(
      await postToken({
        grant_type: "client_credentials",
        client_id: created.clientId,
        client_secret: created.clientSecret,
        scope: "offline_access",
      }),
    );
    assert.equal(tooMuch.body.error, "invalid_scope");
    const publicClient = await readJson(
      await postToken({ grant_type: "client_credentials", client_id: agent().clientId }),
    );
    assert.equal(publicClient.body.error, "invalid_client");
  });
});

describe("bearer tokens on buyer-bound routes", () => {
  const claimsFor = async () => {
    const { clientId, redirectUri } = agent();
    const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete" });
    const payload = JSON.parse(
      Buffer.from(linked.tokens.access_token.split(".")[1]!, "base64url").toString(),
    ) as Record<string, unknown>;
    return { linked, payload };
  };

  test("tokens signed by another key, with alg none, expired, or for another audience → 401 invalid_token", async () => {
    const { linked, payload } = await claimsFor();
    const store = await seedStore();
    assert.equal(await accountStatus(linked.tokens.access_token), 200);
    const { privateKey } = await generateKeyPair("ES256");
    const ours = await getAccessTokenKey();
    const forged = await new SignJWT(payload)
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: ours.kid })
      .sign(privateKey);
    const none = new UnsecuredJWT(payload).encode();
    const otherAudience = await new SignJWT({ ...payload, aud: "https://other.example" })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: ours.kid })
      .sign(ours.privateKey);
    const expired = (
      await issueAccessToken({
        baseUrl: TEST_BASE_URL,
        subject: String(payload.sub),
        clientId: String(payload.client_id),
        scopes: ["purchase:complete"],
        kind: "buyer",
        familyId: String(payload.sid),
        now: new Date(Date.now() - 3600_000),
      })
    ).accessToken;
    for (const [name, token] of Object.entries({
      forged,
      none,
      otherAudience,
      expired,
      garbage: "abc.def",
    })) {
      const res = await callApp("POST", "/account/mcp", {
        headers: { authorization: `Bearer ${token}` },
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      });
      assert.equal(res.status, 401, name);
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer error="invalid_token", realm="${TEST_BASE_URL}", resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/account/mcp"`,
        name,
      );
      // a REST shopping surface answers the same (seed §5 rule 2), with the service-wide resource metadata
      const rest = await callApp("GET", `/s/${store.slug}/carts/cart_x`, {
        headers: envelopeHeaders({ authorization: `Bearer ${token}` }),
      });
      assert.equal(rest.status, 401, name);
      assert.equal(
        rest.headers.get("www-authenticate"),
        `Bearer error="invalid_token", realm="${TEST_BASE_URL}", resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource"`,
      );
    }
  });

  test("seed §5 rule 1: with a key and a valid bearer the key wins and the buyer is not loaded", async () => {
    const { linked } = await claimsFor();
    const { key } = await seedPlatformKey(["orders:read"]);
    const both = await resolvePrincipal({
      apiKey: key,
      authorization: `Bearer ${linked.tokens.access_token}`,
    });
    assert.equal(both.kind, "platform");
    const bearer = await resolvePrincipal({
      apiKey: null,
      authorization: `Bearer ${linked.tokens.access_token}`,
    });
    assert.equal(bearer.kind, "buyer");
    assert.equal(bearer.kind === "buyer" ? bearer.buyerId : "", linked.buyerId);
  });

  test("a buyer token without the scope → insufficient_scope naming the scope in a Bearer challenge", async () => {
    const { linked } = await claimsFor();
    const buyer = await resolvePrincipal({
      apiKey: null,
      authorization: `Bearer ${linked.tokens.access_token}`,
    });
    assert.throws(
      () => assertPermission(buyer, "orders:read"),
      (e: AppError) =>
        e.code === "insufficient_scope" &&
        e.spec.httpStatus === 403 &&
        /^Bearer error="insufficient_scope", realm="[^"]+", scope="purchase:complete orders:read", resource_metadata="/.test(
          e.headers?.["WWW-Authenticate"] ?? "",
        ),
    );
    assert.doesNotThrow(() => assertPermission(buyer, "purchase:complete"));
  });

  test("/account/mcp needs no Request-Id or UCP-Agent, and ignores X-API-Key", async () => {
    const { key } = await seedPlatformKey(["orders:read"]);
    const keyOnly = await callApp("POST", "/account/mcp", {
      headers: { "x-api-key": key },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    assert.equal(keyOnly.status, 401);
    const body = (await keyOnly.json()) as { error: { data: { code: string } } };
    assert.equal(body.error.data.code, "identity_required");
    assert.equal(
      keyOnly.headers.get("www-authenticate"),
      `Bearer realm="${TEST_BASE_URL}", resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/account/mcp"`,
    );
  });
});

describe("housekeeping", () => {
  test("purge-oauth deletes expired requests, old codes and expired refresh tokens; a late replay within a day still revokes", async () => {
    const { purgeExpiredOAuthRecords } = await import("@/lib/oauth/purge-expired");
    const { clientId, redirectUri } = agent();
    const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete offline_access" });
    const pending = await authorize(as, await baseParams(clientId, redirectUri));
    const pendingId = pendingIdFrom(pending);
    // Right now nothing of this flow is expired
    await purgeExpiredOAuthRecords(new Date());
    assert.equal(await accountStatus(linked.tokens.access_token), 200);
    const replay = await readJson(await exchange(clientId, redirectUri, linked.code, linked.verifier));
    assert.equal(replay.body.error, "invalid_grant");
    assert.equal(
      await accountStatus(linked.tokens.access_token),
      401,
      "the used code was kept and revoked on replay",
    );
    // Two days on, everything short-lived is gone
    const later = new Date(Date.now() + 2 * 24 * 3600 * 1000);
    const counts = await purgeExpiredOAuthRecords(later);
    assert.ok(counts.pendingAuthorizations >= 1 && counts.authorizationCodes >= 1);
    await assert.rejects(
      decideAuthorization({
        requestId: pendingId,
        buyerId: linked.buyerId,
        approve: true,
        baseUrl: TEST_BASE_URL,
      }),
      (e: AppError) => e.code === "invalid_request",
    );
  });
});
