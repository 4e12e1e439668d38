import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { expect, test } from "@playwright/test";

// The "done when", with the official MCP SDK client as the agent over real HTTP: it knows only
// {base_url}/account/mcp; the 401 leads it (RFC 9728 → RFC 8414) to the authorization server; the buyer consents
// in Chromium; the SDK exchanges the code (PKCE), calls the account tools, refreshes silently when its access token
// is refused, and loses access the moment the buyer revokes the agent in the consent centre. Its client id is the
// URL of a metadata document served on loopback by this test (test mode allows loopback http).

let agent: Server;
let origin = "";
const NAME = "MCP SDK Agent";
const clientId = () => `${origin}/sdk-agent/client.json`;
const redirectUri = () => `${origin}/sdk-agent/callback`;

test.beforeAll(async () => {
  agent = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/sdk-agent/client.json") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ client_id: clientId(), client_name: NAME, redirect_uris: [redirectUri()] }));
    } else if (path === "/sdk-agent/callback") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>sdk agent</title><p>linked</p>");
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  agent.closeAllConnections();
  await new Promise<void>((resolve) => agent.close(() => resolve()));
});

/** The agent's storage: what a real MCP host keeps between calls. */
const agentProvider = () => {
  const box: { tokens?: OAuthTokens; verifier?: string; authorizationUrl?: URL } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return redirectUri();
    },
    get clientMetadata() {
      return {
        client_name: NAME,
        redirect_uris: [redirectUri()],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    // The CIMD URL as client id (the SDK insists on https for its own CIMD path; loopback http is our test mode).
    clientInformation: () => ({ client_id: clientId() }),
    tokens: () => box.tokens,
    saveTokens: (tokens) => {
      box.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      box.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier) => {
      box.verifier = verifier;
    },
    codeVerifier: () => box.verifier!,
    invalidateCredentials: (scope) => {
      if (scope === "all" || scope === "tokens") box.tokens = undefined;
    },
  };
  return { provider, box };
};

const connect = async (baseURL: string, provider: OAuthClientProvider) => {
  const client = new Client({ name: "sdk-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/account/mcp", baseURL), { authProvider: provider }),
  );
  return client;
};

test("/account/mcp — the MCP SDK agent discovers, gets consent, calls, refreshes silently, and is cut off on revoke", async ({
  page,
  baseURL,
}) => {
  const { provider, box } = agentProvider();
  const transport = new StreamableHTTPClientTransport(new URL("/account/mcp", baseURL), {
    authProvider: provider,
  });
  await expect(new Client({ name: "sdk-agent", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const authorizationUrl = box.authorizationUrl!;
  expect(authorizationUrl.href.startsWith(`${baseURL}/ucp/oauth2/authorize?`)).toBe(true);
  expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId());

  // The buyer, in the browser
  await page.goto(authorizationUrl.href);
  await expect(page.getByTestId("client-name")).toHaveText(NAME);
  await page.getByRole("button", { name: /sandbox wallet/ }).click();
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next; this story gives the allowance elsewhere, or none
  await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri()));
  const code = new URL(page.url()).searchParams.get("code")!;
  await transport.finishAuth(code);
  expect(box.tokens?.refresh_token).toBeTruthy();

  const client = await connect(baseURL!, provider);
  const listed = (await client.callTool({ name: "list_linked_agents", arguments: {} })) as unknown as {
    structuredContent: { linked_agents: { client_id: string }[] };
  };
  expect(listed.structuredContent.linked_agents.map((a) => a.client_id)).toContain(clientId());
  await client.close();

  // Silent refresh: the access token is refused; the SDK refreshes with the rotated refresh token and goes on
  const firstRefresh = box.tokens!.refresh_token;
  box.tokens = { ...box.tokens!, access_token: "expired-or-garbage" };
  const refreshed = await connect(baseURL!, provider);
  expect((await refreshed.listTools()).tools.map((t) => t.name)).toContain("revoke_linked_agent");
  expect(box.tokens.refresh_token).not.toBe(firstRefresh);
  await refreshed.close();

  // The buyer revokes the agent in the consent centre: its current tokens and its refresh token stop at once
  await page.goto("/account/agents");
  const row = page.getByTestId("linked-agent").filter({ hasText: NAME });
  await row.getByRole("button", { name: "Revoke" }).click();
  // revoking asks for confirmation in a dialog first
  await page.getByRole("dialog").getByRole("button", { name: "Revoke access" }).click();
  await expect(page.getByTestId("linked-agent").filter({ hasText: NAME })).toHaveCount(0);
  box.authorizationUrl = undefined;
  // the SDK's silent refresh is refused (invalid_grant), so it drops its tokens…
  const refused = await connect(baseURL!, provider).then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(Error);
  expect(box.tokens).toBeUndefined();
  // …and the next attempt goes back to asking the buyer
  await expect(connect(baseURL!, provider)).rejects.toBeInstanceOf(UnauthorizedError);
  expect((box.authorizationUrl as URL | undefined)?.href.startsWith(`${baseURL}/ucp/oauth2/authorize?`)).toBe(
    true,
  );
});
