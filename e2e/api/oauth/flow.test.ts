import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import * as oauth from "oauth4webapi";

import { callApp, readJson, TEST_BASE_URL } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { connectMcpClient } from "../../helpers/mcp-client";
import { linkAgent, OAUTH_OPTIONS } from "../../helpers/oauth";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The "done when": an agent that knows only the base URL discovers the server, gets the buyer's consent,
// calls /account/mcp with the token, silently refreshes, and loses access the moment the buyer revokes it. The
// OAuth client is oauth4webapi; the MCP client is the official SDK; the CIMD document is served on loopback.

let cimd: CimdServer;
before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

const registerAgent = (path: string, name = "Shopping Agent") => {
  const redirectUri = cimd.url(`${path}/callback`);
  const clientId = cimd.document(path, {
    client_name: name,
    client_uri: cimd.url("/about"),
    logo_uri: cimd.url("/logo.png"),
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: "none",
  });
  return { clientId, redirectUri };
};

const toolJson = (result: unknown): Record<string, unknown> =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

describe("discovery from the base URL alone", () => {
  test("GET /.well-known/oauth-authorization-server — RFC 8414 metadata with S256, iss parameter and CIMD", async () => {
    const as = await oauth.processDiscoveryResponse(
      new URL(TEST_BASE_URL),
      await oauth.discoveryRequest(new URL(TEST_BASE_URL), { ...OAUTH_OPTIONS, algorithm: "oauth2" }),
    );
    assert.equal(as.issuer, TEST_BASE_URL);
    assert.equal(as.authorization_endpoint, `${TEST_BASE_URL}/ucp/oauth2/authorize`);
    assert.equal(as.token_endpoint, `${TEST_BASE_URL}/ucp/oauth2/token`);
    assert.equal(as.revocation_endpoint, `${TEST_BASE_URL}/ucp/oauth2/revoke`);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.equal((as as Record<string, unknown>).client_id_metadata_document_supported, true);
    for (const s of ["purchase:complete", "offline_access"]) assert.ok(as.scopes_supported?.includes(s), s);
    assert.deepEqual(as.grant_types_supported, ["authorization_code", "refresh_token", "client_credentials"]);
    assert.ok(!as.grant_types_supported?.includes("password"));
    assert.ok(!as.grant_types_supported?.includes("implicit"));
    assert.deepEqual(as.response_types_supported, ["code"]);
  });

  test("a 401 from /account/mcp names its RFC 9728 metadata, which names the authorization server", async () => {
    const res = await callApp("POST", "/account/mcp", {
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    assert.equal(res.status, 401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.equal(metadataUrl, `${TEST_BASE_URL}/.well-known/oauth-protected-resource/account/mcp`);
    const prm = await oauth.processResourceDiscoveryResponse(
      new URL(`${TEST_BASE_URL}/account/mcp`),
      await oauth.resourceDiscoveryRequest(new URL(`${TEST_BASE_URL}/account/mcp`), OAUTH_OPTIONS),
    );
    assert.deepEqual(prm.authorization_servers, [TEST_BASE_URL]);
    const root = await readJson<{ resource: string }>(
      await callApp("GET", "/.well-known/oauth-protected-resource"),
    );
    assert.equal(root.body.resource, TEST_BASE_URL);
  });

  test("GET /.well-known/ucp — identity linking entry with a UCP-shaped scope the AS accepts", async () => {
    const res = await readJson<{ ucp: { capabilities: Record<string, { config?: { scopes?: object } }[]> } }>(
      await callApp("GET", "/.well-known/ucp"),
    );
    assertUcpSchema(
      "https://ucp.dev/schemas/common/identity_linking.json#/$defs/dev.ucp.common.identity_linking/business_schema",
      res.body.ucp.capabilities["dev.ucp.common.identity_linking"]?.[0],
    );
    const scopes = Object.keys(
      res.body.ucp.capabilities["dev.ucp.common.identity_linking"]?.[0]?.config?.scopes ?? {},
    );
    assert.deepEqual(scopes, ["dev.ucp.shopping.checkout:manage"]);
    const { clientId, redirectUri } = registerAgent("/ucp-alias");
    const linked = await linkAgent({ clientId, redirectUri, scope: "dev.ucp.shopping.checkout:manage" });
    assert.equal(linked.tokens.scope, "purchase:complete");
  });
});

describe("the linked agent's life: consent → /account/mcp → silent refresh → revoked", () => {
  test("authorization code + PKCE, iss and state verified by oauth4webapi; tokens work on /account/mcp", async () => {
    const { clientId, redirectUri } = registerAgent("/agent-a", "Agent A");
    const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete offline_access" });
    assert.equal(linked.tokens.token_type.toLowerCase(), "bearer");
    assert.equal(linked.tokens.scope, "purchase:complete offline_access");
    assert.ok(linked.tokens.refresh_token, "offline_access yields a refresh token");
    assert.ok((linked.tokens.expires_in ?? 0) > 0 && (linked.tokens.expires_in ?? 0) <= 600);

    // An independent RFC 9068 check of the access token against the published JWKS
    const claims = await oauth.validateJwtAccessToken(
      linked.as,
      new Request(`${TEST_BASE_URL}/account/mcp`, {
        headers: { authorization: `Bearer ${linked.tokens.access_token}` },
      }),
      TEST_BASE_URL,
      OAUTH_OPTIONS,
    );
    assert.equal(claims.sub, linked.buyerId);
    assert.equal(claims.client_id, clientId);
    assert.equal(claims.iss, TEST_BASE_URL);

    const mcp = await connectMcpClient("/account/mcp", {
      headers: { authorization: `Bearer ${linked.tokens.access_token}`, "request-id": "", "ucp-agent": "" },
    });
    const { tools } = await mcp.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "apply_coupon_to_checkout",
      "get_intent_mandate",
      "get_my_order",
      "list_linked_agents",
      "list_my_allowances",
      "list_my_coupons",
      "list_my_orders",
      "prepare_combined_payment",
      "revoke_linked_agent",
    ]);
    const listed = toolJson(await mcp.callTool({ name: "list_linked_agents", arguments: {} }));
    const agents = listed.linked_agents as {
      client_id: string;
      client_name: string;
      scopes: string[];
      last_used_at: string | null;
    }[];
    assert.equal(agents.length, 1);
    assert.equal(agents[0]?.client_id, clientId);
    assert.equal(agents[0]?.client_name, "Agent A");
    assert.deepEqual(agents[0]?.scopes, ["purchase:complete", "offline_access"]);
    assert.ok(agents[0]?.last_used_at, "last used is recorded");
    await mcp.close();

    // Silent refresh: rotated refresh token, new access token that works
    const refreshed = await oauth.processRefreshTokenResponse(
      linked.as,
      linked.client,
      await oauth.refreshTokenGrantRequest(
        linked.as,
        linked.client,
        oauth.None(),
        linked.tokens.refresh_token!,
        OAUTH_OPTIONS,
      ),
    );
    assert.ok(refreshed.refresh_token && refreshed.refresh_token !== linked.tokens.refresh_token, "rotated");
    const again = await connectMcpClient("/account/mcp", {
      headers: { authorization: `Bearer ${refreshed.access_token}`, "request-id": "", "ucp-agent": "" },
    });
    assert.equal(
      (
        toolJson(await again.callTool({ name: "list_linked_agents", arguments: {} }))
          .linked_agents as unknown[]
      ).length,
      1,
    );

    // The buyer revokes (here through the account MCP): every token of the agent dies at once
    const revoked = toolJson(
      await again.callTool({ name: "revoke_linked_agent", arguments: { id: clientId } }),
    );
    assert.equal((revoked.revoked as { client_id: string }).client_id, clientId);
    await again.close();
    for (const token of [linked.tokens.access_token, refreshed.access_token]) {
      const res = await callApp("POST", "/account/mcp", {
        headers: { authorization: `Bearer ${token}` },
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      });
      assert.equal(res.status, 401);
      assert.match(
        res.headers.get("www-authenticate") ?? "",
        /^Bearer error="invalid_token", realm="[^"]+", resource_metadata="/,
      );
    }
    await assert.rejects(
      oauth.processRefreshTokenResponse(
        linked.as,
        linked.client,
        await oauth.refreshTokenGrantRequest(
          linked.as,
          linked.client,
          oauth.None(),
          refreshed.refresh_token!,
          OAUTH_OPTIONS,
        ),
      ),
      (e: oauth.ResponseBodyError) => e.error === "invalid_grant",
    );
  });

  test("without offline_access there is no refresh token; a refresh attempt is invalid_grant", async () => {
    const { clientId, redirectUri } = registerAgent("/agent-b");
    const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete" });
    assert.equal(linked.tokens.refresh_token, undefined);
    assert.equal(linked.tokens.scope, "purchase:complete");
  });

  test("POST /ucp/oauth2/revoke — revoking the refresh token kills the family's access tokens (RFC 7009)", async () => {
    const { clientId, redirectUri } = registerAgent("/agent-c");
    const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete offline_access" });
    const res = await oauth.revocationRequest(
      linked.as,
      linked.client,
      oauth.None(),
      linked.tokens.refresh_token!,
      OAUTH_OPTIONS,
    );
    await oauth.processRevocationResponse(res);
    const mcp = await callApp("POST", "/account/mcp", {
      headers: { authorization: `Bearer ${linked.tokens.access_token}` },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    assert.equal(mcp.status, 401);
    // an unknown token still answers 200 (RFC 7009 §2.2)
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(
        linked.as,
        linked.client,
        oauth.None(),
        "ort_not-a-real-token",
        OAUTH_OPTIONS,
      ),
    );
  });

  test("the consent is recorded per buyer and client: a second link by the same buyer reuses it", async () => {
    const { clientId, redirectUri } = registerAgent("/agent-d");
    const first = await linkAgent({ clientId, redirectUri, scope: "purchase:complete" });
    const second = await linkAgent({
      clientId,
      redirectUri,
      scope: "offline_access",
      buyerId: first.buyerId,
    });
    // the second token carries offline_access alone, which calls no tool (it only refreshes)
    const refreshOnly = await connectMcpClient("/account/mcp", {
      headers: { authorization: `Bearer ${second.tokens.access_token}`, "request-id": "", "ucp-agent": "" },
    });
    await assert.rejects(
      refreshOnly.callTool({ name: "list_linked_agents", arguments: {} }),
      /insufficient_scope/,
    );
    await refreshOnly.close();
    const mcp = await connectMcpClient("/account/mcp", {
      headers: { authorization: `Bearer ${first.tokens.access_token}`, "request-id": "", "ucp-agent": "" },
    });
    const agents = toolJson(await mcp.callTool({ name: "list_linked_agents", arguments: {} }))
      .linked_agents as { scopes: string[] }[];
    assert.equal(agents.length, 1);
    assert.deepEqual(agents[0]?.scopes, ["purchase:complete", "offline_access"]);
    await mcp.close();
  });

  test("account tools act only on the caller's own account; bad input is invalid_request", async () => {
    const a = registerAgent("/agent-e", "Agent E");
    const b = registerAgent("/agent-f", "Agent F");
    const buyerA = await linkAgent({
      clientId: a.clientId,
      redirectUri: a.redirectUri,
      scope: "purchase:complete",
    });
    const buyerB = await linkAgent({
      clientId: b.clientId,
      redirectUri: b.redirectUri,
      scope: "purchase:complete",
    });
    const mcpA = await connectMcpClient("/account/mcp", {
      headers: { authorization: `Bearer ${buyerA.tokens.access_token}`, "request-id": "", "ucp-agent": "" },
    });
    const listed = toolJson(await mcpA.callTool({ name: "list_linked_agents", arguments: {} }));
    assert.deepEqual(
      (listed.linked_agents as { client_id: string }[]).map((x) => x.client_id),
      [a.clientId],
      "buyer A sees only A's agent",
    );
    // buyer A cannot unlink buyer B's agent: not_found, and B's token keeps working
    const other = toolJson(
      await mcpA.callTool({ name: "revoke_linked_agent", arguments: { id: b.clientId } }),
    );
    assert.equal((other.ucp as { status: string }).status, "error");
    assert.equal((other.messages as { code: string }[])[0]?.code, "not_found");
    const res = await callApp("POST", "/account/mcp", {
      headers: { authorization: `Bearer ${buyerB.tokens.access_token}` },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    assert.equal(res.status, 200);
    await assert.rejects(mcpA.callTool({ name: "revoke_linked_agent", arguments: {} }), (e: Error) =>
      /\$\.id/.test(e.message),
    );
    await mcpA.close();
  });
});
