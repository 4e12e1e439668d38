import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { expect, test, type Page } from "@playwright/test";
import * as oauth from "oauth4webapi";

// The consent page in Chromium against the built service: an agent's authorization request, the
// buyer signs in with the sandbox wallet (test mode), approves → the browser lands on the agent's redirect_uri with
// code, state and iss (after the limit step, skipped here: consent-limit.spec.ts signs it); denies → access_denied. The agent's client metadata document and its callback are served
// on loopback by this test. The code is then exchanged over real HTTP by oauth4webapi, and the consent centre's
// revoke is shown to cut the agent off.

let agent: Server;
let origin = "";
const CLIENT_PATH = "/ui-agent/client.json";
const clientId = () => `${origin}${CLIENT_PATH}`;
const redirectUri = () => `${origin}/ui-agent/callback`;

test.beforeAll(async () => {
  agent = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === CLIENT_PATH) {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: clientId(),
          client_name: "Playwright Shopping Agent",
          client_uri: `${origin}/ui-agent`,
          redirect_uris: [redirectUri()],
        }),
      );
    } else if (path === "/ui-agent/callback") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>agent callback</title><p>back at the agent</p>");
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  agent.closeAllConnections();
  await new Promise<void>((resolve) => agent.close(() => resolve()));
});

const startAuthorization = async (page: Page, baseURL: string) => {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL("/ucp/oauth2/authorize", baseURL);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId(),
    redirect_uri: redirectUri(),
    scope: "purchase:complete offline_access",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  const response = await page.goto(url.href);
  expect(new URL(page.url()).pathname).toBe("/oauth/consent");
  return { verifier, state, response };
};

const signInWithSandbox = async (page: Page) => {
  await expect(page.getByTestId("client-name")).toHaveText("Playwright Shopping Agent");
  await page.getByRole("button", { name: /sandbox wallet/ }).click();
  await expect(page.getByRole("button", { name: "Allow" })).toBeVisible();
  await expect(page.getByTestId("buyer-address")).toHaveText(/^0x[0-9a-f]{64}$/);
};

test("consent page — sandbox wallet sign-in, approve → the agent's redirect_uri with code, state and iss", async ({
  page,
  baseURL,
}) => {
  // consent, the limit step, the token exchange and the consent centre: more than 30 s on 2 shared cores
  test.setTimeout(120_000);
  const { verifier, state, response } = await startAuthorization(page, baseURL!);
  // RFC 9700 §4.16: the consent page may not be framed
  expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(response?.headers()["x-frame-options"]).toBe("DENY");
  await signInWithSandbox(page);
  await expect(page.getByText("purchase:complete")).toBeVisible();
  await expect(page.getByText(/not permission to spend/)).toBeVisible();

  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20): the buyer skips it, so the agent is linked but cannot pay
  await page.waitForURL((url) => url.pathname === "/oauth/consent/limit");
  await expect(page.getByTestId("skip-note")).toContainText("cannot pay for you");
  await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri()));
  await expect(page.getByText("back at the agent")).toBeVisible();
  const landed = new URL(page.url());
  expect(landed.searchParams.get("state")).toBe(state);
  expect(landed.searchParams.get("iss")).toBe(baseURL);
  expect(landed.searchParams.get("code")).toMatch(/^oac_/);

  // The agent exchanges the code over real HTTP with oauth4webapi
  const options = { [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(baseURL!);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
  );
  const client: oauth.Client = { client_id: clientId() };
  const params = oauth.validateAuthResponse(as, client, landed, state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri(),
      verifier,
      options,
    ),
  );
  expect(tokens.refresh_token).toBeTruthy();
  const callAccount = () =>
    page.request.post("/account/mcp", {
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        accept: "application/json, text/event-stream",
      },
      data: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_linked_agents", arguments: {} },
      },
    });
  expect((await callAccount()).status()).toBe(200);
  // skipped: no allowance, so the agent cannot pay for the buyer
  const allowances = await page.request.post("/account/mcp", {
    headers: {
      authorization: `Bearer ${tokens.access_token}`,
      accept: "application/json, text/event-stream",
    },
    data: {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "list_my_allowances", arguments: {} },
    },
  });
  const listed = await allowances.text();
  expect(
    (
      JSON.parse(listed.includes("data:") ? listed.split("data:")[1]!.trim() : listed) as {
        result: { structuredContent: { allowances: unknown[] } };
      }
    ).result.structuredContent.allowances,
  ).toEqual([]);
  // the limit step is over: going back to it shows nothing to continue
  await page.goto("/oauth/consent/limit");
  await expect(page.getByText("There is no agent waiting for a spending limit")).toBeVisible();

  // The consent centre lists the agent; one click revokes it and its tokens stop working
  await page.goto("/account/agents");
  const row = page.getByTestId("linked-agent").filter({ hasText: "Playwright Shopping Agent" });
  await expect(row).toBeVisible();
  // the scopes in words, each with what it lets the agent do
  await expect(row.getByText("Stay connected", { exact: true })).toBeVisible();
  await expect(row.getByText(/renew its access without asking you again/)).toBeVisible();
  await row.getByRole("button", { name: "Revoke" }).click();
  // revoking asks for confirmation in a dialog first
  await page.getByRole("dialog").getByRole("button", { name: "Revoke access" }).click();
  await expect(page.getByTestId("linked-agent").filter({ hasText: "Playwright Shopping Agent" })).toHaveCount(
    0,
  );
  const after = await callAccount();
  expect(after.status()).toBe(401);
  expect(after.headers()["www-authenticate"]).toMatch(
    /^Bearer error="invalid_token", realm="[^"]+", resource_metadata="/,
  );
});

test("consent page — deny → the agent's redirect_uri with error=access_denied", async ({ page, baseURL }) => {
  const { state } = await startAuthorization(page, baseURL!);
  await signInWithSandbox(page);
  await page.getByRole("button", { name: "Deny" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri()));
  const landed = new URL(page.url());
  expect(landed.searchParams.get("error")).toBe("access_denied");
  expect(landed.searchParams.get("state")).toBe(state);
  expect(landed.searchParams.get("iss")).toBe(baseURL);
  expect(landed.searchParams.get("code")).toBeNull();
});

test("authorization endpoint — an unregistered redirect_uri shows our error page in the browser, never the redirect_uri", async ({
  page,
  baseURL,
}) => {
  const url = new URL("/ucp/oauth2/authorize", baseURL);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId(),
    redirect_uri: "https://attacker.example/steal",
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  }).toString();
  await page.goto(url.href);
  expect(new URL(page.url()).origin).toBe(baseURL);
  expect(new URL(page.url()).pathname).toBe("/oauth/error");
  await expect(page.getByRole("heading", { name: /cannot be processed/ })).toBeVisible();
  await expect(page.getByTestId("oauth-error-description")).toHaveText(
    "redirect_uri is not one of the client's registered redirect_uris",
  );
});

test("consent page — a Wallet Standard Sui wallet (not the sandbox) signs the buyer in as its own address", async ({
  page,
  baseURL,
}) => {
  // A test wallet registered through the Wallet Standard events, as a browser extension would; its key lives in
  // the test process and signs real Sui personal messages.
  const keypair = Ed25519Keypair.generate();
  await page.exposeFunction(
    "testWalletSign",
    async (bytes: number[]) => (await keypair.signPersonalMessage(Uint8Array.from(bytes))).signature,
  );
  await page.addInitScript((address: string) => {
    // what dApp Kit lists: connect, events and transaction signing (never asked here) on the page's networks
    const chains = ["sui:mainnet", "sui:testnet"];
    const account = {
      address,
      publicKey: new Uint8Array(),
      chains,
      features: ["sui:signPersonalMessage", "sui:signTransaction"],
    };
    const wallet = {
      version: "1.0.0",
      name: "Test Wallet",
      icon: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'/>",
      chains,
      accounts: [account],
      features: {
        "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [account] }) },
        "standard:events": { version: "1.0.0", on: () => () => undefined },
        "sui:signTransaction": {
          version: "2.0.0",
          signTransaction: () => Promise.reject(new Error("not asked on the consent page")),
        },
        "sui:signPersonalMessage": {
          version: "1.1.0",
          signPersonalMessage: async ({ message }: { message: Uint8Array }) => ({
            bytes: "",
            signature: await (
              window as unknown as { testWalletSign: (b: number[]) => Promise<string> }
            ).testWalletSign(Array.from(message)),
          }),
        },
      },
    };
    window.addEventListener("wallet-standard:app-ready", (event) =>
      (event as CustomEvent<{ register: (w: unknown) => void }>).detail.register(wallet),
    );
  }, keypair.toSuiAddress());

  await startAuthorization(page, baseURL!);
  await page.getByRole("button", { name: "Connect a wallet" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Test Wallet" }).click();
  await expect(page.getByTestId("buyer-address")).toHaveText(keypair.toSuiAddress());
  await expect(page.getByRole("button", { name: "Allow" })).toBeVisible();
});
