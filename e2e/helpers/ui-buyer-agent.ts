import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, type Page } from "@playwright/test";
import type { JWK } from "jose";
import * as oauth from "oauth4webapi";

import { seedId } from "../../prisma/seed/seed-ids";
import { withMandateKey } from "./card-completion";

// An outside agent for the buyer-page browser specs, against the shared served app: its client metadata (CIMD), its
// OAuth callback and its UCP profile (with the ES256 key its checkout mandates are signed with) on loopback; the
// buyer links it on the consent page with the sandbox wallet, and it then calls the UCP REST surface with the
// buyer's bearer or the demo platform key, and /account/mcp with the bearer.

export const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
/** The shared server's Sui sandbox (playwright.config.ts chooses its port). */
export const SANDBOX_URL = `http://127.0.0.1:${process.env.E2E_SUI_SANDBOX_PORT}`;

export const demoKey = (): string =>
  (
    JSON.parse(
      readFileSync(path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"), "utf8"),
    ) as { key: string }
  ).key;

export type Checkout = {
  id: string;
  status: string;
  continue_url?: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
  totals: { type: string; amount: number }[];
};

export type UiAgent = {
  name: string;
  clientId: string;
  profileUrl: string;
  signer: { privateJwk: JWK; kid: string };
  close: () => Promise<void>;
};

/** Serves the agent's client metadata, callback and mandate-signing profile. */
export const startUiAgent = async (name: string): Promise<UiAgent> => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = `ui-agent-${randomUUID().slice(0, 8)}`;
  const demo = (await (await fetch(`${BASE}/demo/agent/.well-known/ucp`)).json()) as object;
  const profile = JSON.stringify(
    withMandateKey(demo, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
  );
  let origin = "";
  const server: Server = createServer((req, res) => {
    const p = (req.url ?? "/").split("?")[0];
    if (p === "/agent/client.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: `${origin}/agent/client.json`,
          client_name: name,
          redirect_uris: [`${origin}/agent/callback`],
        }),
      );
    } else if (p === "/agent/callback") {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>agent</title><p>ok</p>");
    } else if (p === "/agent/.well-known/ucp") {
      res.writeHead(200, { "content-type": "application/json" }).end(profile);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    name,
    clientId: `${origin}/agent/client.json`,
    profileUrl: `${origin}/agent/.well-known/ucp`,
    signer: { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * The buyer (not signed in yet) approves the agent on the consent page with the sandbox wallet, which signs them in;
 * returns the agent's access token.
 */
export const linkWithSandboxWallet = async (page: Page, agent: UiAgent): Promise<string> => {
  const redirectUri = agent.clientId.replace("/client.json", "/callback");
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL("/ucp/oauth2/authorize", BASE);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: agent.clientId,
    redirect_uri: redirectUri,
    scope: "purchase:complete",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  await page.goto(url.href);
  await page.getByRole("button", { name: /sandbox wallet/ }).click();
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next; this story gives the allowance elsewhere, or none
  await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((u) => u.href.startsWith(redirectUri));
  const options = { [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(BASE);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
  );
  const client: oauth.Client = { client_id: agent.clientId };
  const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      options,
    ),
  );
  return tokens.access_token;
};

/** A UCP REST call at a store as the agent: its profile in UCP-Agent, and the bearer or the platform key. */
export const ucp = async <T>(
  agent: UiAgent,
  store: string,
  method: string,
  p: string,
  credential: Record<string, string>,
  body?: unknown,
): Promise<T> => {
  const response = await fetch(`${BASE}/s/${store}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${agent.profileUrl}"`,
      ...credential,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
};

/** A tool of /account/mcp called with the buyer's bearer; its structured result. */
export const accountTool = async <T>(bearer: string, name: string, args: Record<string, unknown>) => {
  const response = await fetch(`${BASE}/account/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: { "idempotency-key": randomUUID() } },
    }),
  });
  const text = await response.text();
  const json = JSON.parse(text.includes("data:") ? text.split("data:")[1]!.trim() : text) as {
    result: { isError?: boolean; structuredContent: T };
  };
  expect(json.result.isError, text).toBeFalsy();
  return json.result.structuredContent;
};

/** An in-stock variant of a demo store. */
export const inStockVariant = async (agent: UiAgent, store: string): Promise<string> => {
  for (let i = 0; i < 20; i++) {
    const { product } = await ucp<{
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    }>(agent, store, "POST", "/catalog/product", {}, { id: seedId("product", store, i) });
    const id = product?.variants.find((v) => v.availability?.available !== false)?.id;
    if (id) return id;
  }
  throw new Error(`no demo variant in stock in ${store}`);
};

/** A ready checkout of one item in a demo store, paying with `handler` (svc.card or svc.crypto). */
export const readyCheckout = async (
  agent: UiAgent,
  store: string,
  credential: Record<string, string>,
  handler: "svc.card" | "svc.crypto",
): Promise<Checkout> => {
  const checkout = await ucp<Checkout>(agent, store, "POST", "/checkout-sessions", credential, {
    line_items: [{ item: { id: await inStockVariant(agent, store) }, quantity: 1 }],
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
    shipping_address: {
      line1: "1 Market St",
      city: "Denver",
      region: "CO",
      postal_code: "80202",
      country: "US",
    },
    shipping_method_id: "standard",
    payment: { instruments: [{ handler_id: handler, selected: true }] },
  });
  expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");
  return checkout;
};

/** The buyer signs an allowance of `perDay` (major units, USD) for the agent on the spend-cap page. */
export const signAllowanceOnPage = async (page: Page, agent: UiAgent, perDay: string) => {
  await page.goto(`${BASE}/account/spend-caps`);
  const section = page.getByTestId("agent-caps").filter({ hasText: agent.name });
  await section.getByRole("button", { name: "New allowance" }).click();
  const form = section.getByRole("form", { name: /New allowance/ });
  await form.getByLabel("Per day (USD)").fill(perDay);
  await form.getByRole("button", { name: "Sign with your wallet" }).click();
  await expect(section.getByTestId("allowance")).toHaveCount(1);
  return section;
};

export const usd = (minor: number) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);

export const totalOf = (checkout: Pick<Checkout, "totals">) =>
  checkout.totals.find((t) => t.type === "total")!.amount;
