import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as oauth from "oauth4webapi";

import { handleBridgeMcp, type BridgeOptions } from "@/lib/bridge/http";
import { mountedBridgeOptions } from "@/lib/bridge/mounted";
import { ACCOUNT_TOOLS as SERVICE_ACCOUNT_TOOLS } from "@/lib/mcp/tools/account";

import { seedPlatformKey } from "../../factories";
import { callApp, readJson } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { connectMcpClient } from "../../helpers/mcp-client";
import { authorize, discover, linkAgent, OAUTH_OPTIONS, pendingIdFrom } from "../../helpers/oauth";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  BRIDGE_URL,
  connectBridge,
  resultJson,
  serviceFetch,
  TEST_BASE_URL,
  type SeenRequest,
} from "./helpers";

// The bridge's surface: what an MCP client lists (every tool, the seed's annotations, output schemas), its
// identity (a key file created on first use, the agent profile it serves, RFC 9728 metadata), credentials
// (the key alone on platform calls, the bearer alone on buyer-bound ones) and seed §5 rule 6: a 401 from the
// service reaches the client as HTTP 401 with WWW-Authenticate unchanged, the client refreshes, the call works.

// read lazily by the app (getEnv caches its first read; nothing has read it yet at module evaluation)
const DEPLOYED_BRIDGE = "https://bridge.example.net";
process.env.BRIDGE_URL = DEPLOYED_BRIDGE;
const keyDir = mkdtempSync(path.join(tmpdir(), "bridge-key-"));
process.env.BRIDGE_KEY_FILE = path.join(keyDir, "nested", "bridge-key.json");

let agent: AgentProfileServer;
let cimd: CimdServer;
const seen: SeenRequest[] = [];

const options = (): BridgeOptions => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: agent.profileUrl,
  key: agent.key,
  fetch: serviceFetch(seen),
  retry: { baseDelayMs: 1, sleep: async () => {} },
});

before(async () => {
  await prepareTestDatabase();
  agent = await startAgentProfileServer();
  cimd = await startCimdServer();
});
after(async () => {
  await agent.close();
  await cimd.close();
  await closeTestDatabase();
});

const SHOPPING = [
  "search_products",
  "lookup_products",
  "get_product",
  "search_locations",
  "lookup_locations",
  "create_cart",
  "update_cart",
  "get_cart",
  "cancel_cart",
  "create_checkout",
  "update_checkout",
  "cancel_checkout",
  "get_order",
  "request_order_cancellation",
  "request_order_refund",
  "quote_purchase",
  "confirm_purchase",
];
const READ_ONLY = new Set([
  "search_products",
  "lookup_products",
  "get_product",
  "search_locations",
  "lookup_locations",
  "get_cart",
  "get_order",
]);
const DESTRUCTIVE = new Set([
  "confirm_purchase",
  "cancel_cart",
  "cancel_checkout",
  "request_order_cancellation",
  "request_order_refund",
]);

test("tools/list (official SDK client, mounted /bridge/mcp) — every tool, the seed's annotations, output schemas", async () => {
  const client = await connectMcpClient("/bridge/mcp", { headers: { "request-id": "", "ucp-agent": "" } });
  try {
    const { tools } = await client.listTools();
    const accountNames = SERVICE_ACCOUNT_TOOLS.map((op) => op.name);
    assert.deepEqual(
      tools.map((t) => t.name),
      [...SHOPPING, ...accountNames],
    );
    for (const tool of tools) {
      assert.ok(tool.title && tool.description && tool.description.length > 40, tool.name);
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an output schema`);
      const a = tool.annotations ?? {};
      assert.equal(a.openWorldHint, true, `${tool.name}: reaches the commerce service`);
      if (SHOPPING.includes(tool.name)) {
        assert.equal(a.readOnlyHint, READ_ONLY.has(tool.name), `${tool.name} readOnlyHint`);
        if (!READ_ONLY.has(tool.name)) {
          assert.equal(a.destructiveHint, DESTRUCTIVE.has(tool.name), `${tool.name} destructiveHint`);
        }
      }
    }
    // proxied account tools carry the account surface's own annotations (read-only unless marked otherwise)
    for (const op of SERVICE_ACCOUNT_TOOLS) {
      const listed = tools.find((t) => t.name === op.name)!;
      const own = op.mcp.annotations as { readOnlyHint?: boolean; destructiveHint?: boolean };
      assert.equal(
        listed.annotations?.readOnlyHint ?? false,
        own.readOnlyHint ?? !own.destructiveHint,
        op.name,
      );
      assert.equal(listed.annotations?.destructiveHint ?? false, own.destructiveHint ?? false, op.name);
    }
    // money inputs are documented in major units
    const search = tools.find((t) => t.name === "search_products")!;
    assert.match(JSON.stringify(search.inputSchema), /major units/);
  } finally {
    await client.close();
  }
});

test("identity — the hosted bridge's key file is created 0600 on first use and its profile publishes the key", async () => {
  const first = await readJson<{ signing_keys: { kid: string; x: string }[]; ucp: { capabilities: object } }>(
    await callApp("GET", "/bridge/.well-known/ucp"),
  );
  assert.equal(first.status, 200);
  const file = process.env.BRIDGE_KEY_FILE!;
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const stored = JSON.parse(readFileSync(file, "utf8")) as { kid: string; publicJwk: { x: string } };
  assert.deepEqual(
    first.body.signing_keys.map((k) => [k.kid, k.x]),
    [[stored.kid, stored.publicJwk.x]],
  );
  assert.ok("dev.ucp.shopping.ap2_mandate" in first.body.ucp.capabilities);
  const second = await readJson<{ signing_keys: { kid: string }[] }>(
    await callApp("GET", "/bridge/.well-known/ucp"),
  );
  assert.equal(second.body.signing_keys[0]?.kid, stored.kid, "the same key across reads (and restarts)");
});

test("RFC 9728 — the bridge's protected-resource metadata names our AS, which accepts the bridge URL as resource", async () => {
  const metadata = await readJson<{
    resource: string;
    authorization_servers: string[];
    scopes_supported: string[];
  }>(await callApp("GET", "/.well-known/oauth-protected-resource/bridge/mcp"));
  // the mounted bridge's own resource (RFC 9728 §3.3: the resource the metadata URL was derived from)
  assert.equal(metadata.body.resource, `${TEST_BASE_URL}/bridge/mcp`);
  assert.deepEqual(metadata.body.authorization_servers, [TEST_BASE_URL]);
  assert.ok(metadata.body.scopes_supported.includes("offline_access"));

  const redirectUri = cimd.url("/bridge-user/callback");
  const clientId = cimd.document("/bridge-user", {
    client_name: "Bridge user",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: "none",
  });
  const as = await discover();
  const params = (resource: string) => ({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "purchase:complete",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    resource,
  });
  // the deployed bridge (and its endpoints) are accepted …
  for (const resource of [DEPLOYED_BRIDGE, `${DEPLOYED_BRIDGE}/mcp`, `${TEST_BASE_URL}/bridge/mcp`]) {
    assert.ok(pendingIdFrom(await authorize(as, params(resource))), resource);
  }
  // … a look-alike host is not
  const refused = await authorize(as, params(`${DEPLOYED_BRIDGE}.evil.example/mcp`));
  const location = new URL(refused.headers.get("location")!);
  assert.equal(location.searchParams.get("error"), "invalid_request");
});

test("seed §5 rules 1 and 6 — bearer alone on buyer calls; a 401 is relayed unchanged; refresh, then the call works", async () => {
  const redirectUri = cimd.url("/bridge-buyer/callback");
  const clientId = cimd.document("/bridge-buyer", {
    client_name: "Bridge buyer agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: "none",
  });
  const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete offline_access" });
  const apiKey = (await seedPlatformKey()).key;

  // a stale bearer: the bridge answers HTTP 401 with the service's own WWW-Authenticate
  const stale = "Bearer not-a-live-token";
  const direct = await callApp("POST", "/account/mcp", {
    headers: { authorization: stale },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_my_orders", arguments: {} } },
  });
  assert.equal(direct.status, 401);
  const challenge = direct.headers.get("www-authenticate");
  assert.match(challenge ?? "", /^Bearer error="invalid_token"/);
  const relayed = await handleBridgeMcp(
    new Request(`${BRIDGE_URL}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: stale,
        "x-api-key": apiKey,
        "x-forwarded-for": "203.0.113.9, 10.0.0.1",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "list_my_orders", arguments: {} },
      }),
    }),
    options(),
  );
  assert.equal(relayed.status, 401);
  assert.equal(relayed.headers.get("www-authenticate"), challenge);
  const rpc = (await relayed.json()) as { id: number; error: { data: { code: string } } };
  assert.deepEqual([rpc.id, rpc.error.data.code], [7, "invalid_token"]);
  const accountCall = seen.at(-1)!;
  assert.equal(accountCall.path, "/account/mcp");
  assert.equal(accountCall.headers.authorization, stale);
  assert.equal(accountCall.headers["x-api-key"], undefined, "the bearer goes alone (seed §5 rule 1)");
  // the caller's own X-Forwarded-For is its claim: never forwarded (the bridge names its caller only by what it
  // saw, BridgeOptions.callerAddress)
  assert.equal(accountCall.headers.forwarded, undefined);

  // the client refreshes (offline_access) and the same call through the bridge succeeds
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
  const client = await connectBridge(options(), {
    authorization: `Bearer ${refreshed.access_token}`,
    "x-api-key": apiKey,
  });
  try {
    const orders = resultJson(await client.callTool({ name: "list_my_orders", arguments: {} }));
    assert.ok(Array.isArray(orders.orders), JSON.stringify(orders));
    // a platform call from the same caller carries the key only, never the bearer
    await client.callTool({ name: "search_products", arguments: { query: "anything" } });
    const search = seen.at(-1)!;
    assert.equal(search.path, "/catalog/search");
    assert.equal(search.headers.authorization, undefined);
    assert.equal(search.headers["x-api-key"], apiKey);
  } finally {
    await client.close();
  }
});

test("seed §5 rule 6 with the official SDK client — the mounted bridge's 401 leads it to refresh, and the call works", async () => {
  const redirectUri = cimd.url("/bridge-sdk/callback");
  const clientId = cimd.document("/bridge-sdk", {
    client_name: "Bridge SDK agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: "none",
  });
  const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete offline_access" });
  // the client holds an access token the service no longer accepts, and its refresh token
  let tokens: { access_token: string; token_type: string; refresh_token?: string } = {
    access_token: "expired-access-token",
    token_type: "Bearer",
    refresh_token: linked.tokens.refresh_token!,
  };
  let refreshes = 0;
  const provider: OAuthClientProvider = {
    redirectUrl: redirectUri,
    clientMetadata: { redirect_uris: [redirectUri], client_name: "Bridge SDK agent" },
    clientInformation: () => ({ client_id: clientId }),
    tokens: () => tokens,
    saveTokens: (next) => {
      refreshes++;
      tokens = next;
    },
    redirectToAuthorization: () => assert.fail("a refresh needs no new authorization"),
    saveCodeVerifier: () => {},
    codeVerifier: () => assert.fail("no authorization code flow"),
  };
  // the mounted bridge's own options (key file, profile, challenge metadata), its fetch routed in-process
  const mounted = await mountedBridgeOptions({
    baseUrl: TEST_BASE_URL,
    bridgeUrl: `${TEST_BASE_URL}/bridge`,
    keyFile: process.env.BRIDGE_KEY_FILE!,
  });
  const options: BridgeOptions = { ...mounted, fetch: serviceFetch(seen) };
  const challenges: string[] = [];
  const fetchAll = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const target = new URL(url);
    if (target.pathname === "/bridge/mcp") {
      const response = await handleBridgeMcp(new Request(target, init), options);
      const challenge = response.headers.get("www-authenticate");
      if (challenge) challenges.push(challenge);
      return response;
    }
    const body = typeof init?.body === "string" ? init.body : init?.body ? String(init.body) : undefined;
    return callApp(init?.method ?? "GET", `${target.pathname}${target.search}`, {
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      ...(body !== undefined ? { rawBody: body } : {}),
    });
  };
  const client = new Client({ name: "bridge-sdk-oauth", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${TEST_BASE_URL}/bridge/mcp`), {
      authProvider: provider,
      fetch: fetchAll,
    }),
  );
  try {
    const result = await client.callTool({ name: "list_my_orders", arguments: {} });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.ok(Array.isArray(resultJson(result).orders));
    assert.equal(refreshes, 1, "one silent refresh");
    assert.notEqual(tokens.access_token, "expired-access-token");
    // the service's challenge, with only its resource metadata pointed at the bridge's own (which the SDK checks
    // against the URL it called)
    assert.equal(
      challenges[0],
      `Bearer error="invalid_token", realm="${TEST_BASE_URL}", resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/bridge/mcp"`,
    );
  } finally {
    await client.close();
  }
});

test("the bridge's HTTP endpoint — an answer in JSON, never cached; 405 on GET, -32700 on a non-JSON body, 413 over 1 MB; nothing reaches the service", async () => {
  const before = seen.length;
  const listed = await handleBridgeMcp(
    new Request(`${BRIDGE_URL}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    }),
    options(),
  );
  assert.equal(listed.status, 200);
  assert.equal(listed.headers.get("cache-control"), "no-store");
  assert.match(listed.headers.get("content-type") ?? "", /^application\/json/);
  const listing = (await listed.json()) as { id: number; result: { tools: { name: string }[] } };
  assert.equal(listing.id, 7);
  assert.ok(listing.result.tools.some((t) => t.name === "confirm_purchase"));
  const get = await handleBridgeMcp(new Request(`${BRIDGE_URL}/mcp`), options());
  assert.deepEqual([get.status, get.headers.get("allow")], [405, "POST"]);
  const garbage = await handleBridgeMcp(
    new Request(`${BRIDGE_URL}/mcp`, { method: "POST", body: "{not json" }),
    options(),
  );
  assert.equal(garbage.status, 400);
  assert.equal(((await garbage.json()) as { error: { code: number } }).error.code, -32700);
  const huge = await handleBridgeMcp(
    new Request(`${BRIDGE_URL}/mcp`, { method: "POST", body: `"${"x".repeat(1_100_000)}"` }),
    options(),
  );
  assert.equal(huge.status, 413);
  assert.equal(seen.length, before);
});
