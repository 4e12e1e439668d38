import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey } from "../../factories";
import { AGENT_PROFILE, callApp, mcpCall, readJson, rest, TEST_BASE_URL } from "../../helpers/app-client";
import {
  createCryptoCheckout,
  cryptoCompletionBody,
  seedCryptoStore,
  signedProfile,
} from "../../helpers/crypto-purchase";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import type { Checkout, ErrorEnvelope } from "../checkout/helpers";

// A buyer-bound call (payment-intent / prepare_checkout_payment, a crypto completion) made without the buyer's
// bearer answers the OAuth way: 401 identity_required with a Bearer challenge naming the protected resource
// metadata (RFC 6750 §3, RFC 9728 §5.1), over REST and MCP, whether the caller sent nothing, a platform key or a bad
// bearer (then error="invalid_token", seed §5 rule 2); the message says to sign the buyer in over OAuth, never to
// send an API key; nothing is prepared. The official MCP SDK client starts its authorization flow from that 401.

const RESOURCE_METADATA = `${TEST_BASE_URL}/.well-known/oauth-protected-resource`;
const CHALLENGE = `Bearer realm="${TEST_BASE_URL}", scope="purchase:complete", resource_metadata="${RESOURCE_METADATA}"`;
const INVALID_TOKEN_CHALLENGE = `Bearer error="invalid_token", realm="${TEST_BASE_URL}", resource_metadata="${RESOURCE_METADATA}"`;

let apiKey = "";
let store: Store;
let checkout: Checkout;
let walletAddress = "";

before(async () => {
  await prepareTestDatabase();
  apiKey = (await seedPlatformKey(["purchase:complete"])).key;
  const seeded = await seedCryptoStore();
  store = seeded.store;
  checkout = await createCryptoCheckout(store, apiKey, seeded.variantId);
  walletAddress = `0x${"ab".repeat(32)}`;
});
after(closeTestDatabase);

const preparedCount = async () => (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } });

const paymentIntent = (headers: Record<string, string>) =>
  rest("POST", `/s/${store.slug}/checkout-sessions/${checkout.id}/payment-intent`, {
    headers: { "idempotency-key": randomUUID(), ...headers },
    body: { buyer_address: walletAddress },
  });

const prepareTool = (headers: Record<string, string>) =>
  mcpCall(
    `/s/${store.slug}/mcp`,
    "prepare_checkout_payment",
    { id: checkout.id, buyer_address: walletAddress },
    { headers, idempotencyKey: randomUUID() },
  );

type RpcError = { error?: { data?: { code?: string; content?: string } } };

const firstMessage = (body: unknown) => (body as ErrorEnvelope).messages[0];

describe("REST: POST /s/:slug/checkout-sessions/:id/payment-intent without the buyer's bearer", () => {
  test("anonymous → 401 identity_required + WWW-Authenticate Bearer realm, scope, resource_metadata; the message names OAuth, not an API key", async () => {
    const res = await paymentIntent({});
    assert.equal(res.status, 401, res.text);
    assert.equal(firstMessage(res.body)?.code, "identity_required");
    assert.equal(res.headers.get("www-authenticate"), CHALLENGE);
    const content = firstMessage(res.body)?.content ?? "";
    assert.match(content, /sign the buyer in over OAuth/);
    assert.match(content, /scope purchase:complete/);
    assert.doesNotMatch(content, /X-API-Key|API key|platform key/i);
    assert.equal(await preparedCount(), 0);
  });

  test("with a platform key → the same 401 and challenge; the message says to send the buyer's token alone", async () => {
    const res = await paymentIntent({ "x-api-key": apiKey });
    assert.equal(res.status, 401, res.text);
    assert.equal(firstMessage(res.body)?.code, "identity_required");
    assert.equal(res.headers.get("www-authenticate"), CHALLENGE);
    const content = firstMessage(res.body)?.content ?? "";
    assert.match(content, /sign the buyer in over OAuth/);
    assert.match(content, /ALONE/);
    assert.equal(await preparedCount(), 0);
  });

  test('with an invalid bearer → 401 invalid_token + the challenge with error="invalid_token"', async () => {
    const res = await paymentIntent({ authorization: "Bearer not-a-token" });
    assert.equal(res.status, 401, res.text);
    assert.equal(firstMessage(res.body)?.code, "invalid_token");
    assert.equal(res.headers.get("www-authenticate"), INVALID_TOKEN_CHALLENGE);
    assert.equal(await preparedCount(), 0);
  });

  test("the challenge's resource_metadata is served and names this authorization server", async () => {
    const res = await readJson(await callApp("GET", new URL(RESOURCE_METADATA).pathname));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.resource, TEST_BASE_URL);
    assert.deepEqual(res.body.authorization_servers, [TEST_BASE_URL]);
  });

  test("a crypto completion with a platform key → 401 identity_required with the challenge (an operation's own refusal)", async () => {
    const res = await rest("POST", `/s/${store.slug}/checkout-sessions/${checkout.id}/complete`, {
      headers: {
        "x-api-key": apiKey,
        "ucp-agent": `profile="${(await signedProfile()).url}"`,
        "idempotency-key": randomUUID(),
      },
      body: await cryptoCompletionBody(checkout, store.slug, "9".repeat(44), null),
    });
    assert.equal(res.status, 401, res.text);
    assert.equal(firstMessage(res.body)?.code, "identity_required");
    assert.equal(res.headers.get("www-authenticate"), CHALLENGE);
    assert.match(firstMessage(res.body)?.content ?? "", /sign the buyer in over OAuth/);
    assert.equal(await (await getDb()).order.count({ where: { checkoutId: checkout.id } }), 0);
  });
});

describe("MCP: prepare_checkout_payment on /s/:slug/mcp without the buyer's bearer", () => {
  test("anonymous and with a platform key → HTTP 401 with the Bearer challenge, identity_required in the JSON-RPC error", async () => {
    for (const headers of [{}, { "x-api-key": apiKey }] as Record<string, string>[]) {
      const res = await prepareTool(headers);
      assert.equal(res.status, 401, res.text);
      assert.equal((res.body as RpcError).error?.data?.code, "identity_required");
      assert.match((res.body as RpcError).error?.data?.content ?? "", /sign the buyer in over OAuth/);
      assert.equal(res.headers.get("www-authenticate"), CHALLENGE);
    }
    assert.equal(await preparedCount(), 0);
  });

  test('with an invalid bearer → HTTP 401 invalid_token with error="invalid_token"', async () => {
    const res = await prepareTool({ authorization: "Bearer not-a-token" });
    assert.equal(res.status, 401, res.text);
    assert.equal((res.body as RpcError).error?.data?.code, "invalid_token");
    assert.equal(res.headers.get("www-authenticate"), INVALID_TOKEN_CHALLENGE);
  });

  test("the official MCP SDK client starts OAuth from the 401: it discovers our server and sends the buyer to /ucp/oauth2/authorize with scope purchase:complete", async () => {
    const redirected: URL[] = [];
    const callback = "https://agent.example/callback";
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return callback;
      },
      get clientMetadata() {
        return { redirect_uris: [callback], client_name: "SDK test agent" };
      },
      // a CIMD client id (draft-ietf-oauth-client-id-metadata-document), as our server supports
      clientInformation: () => ({ client_id: "https://agent.example/oauth/client.json" }),
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: (url) => {
        redirected.push(url);
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => "unused",
    };
    const fetchInProcess = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const target = new URL(url);
      const headers = {
        "request-id": randomUUID(),
        "ucp-agent": `profile="${AGENT_PROFILE}"`,
        ...Object.fromEntries(new Headers(init?.headers).entries()),
      };
      const rawBody = typeof init?.body === "string" ? init.body : undefined;
      return callApp(init?.method ?? "GET", `${target.pathname}${target.search}`, { headers, rawBody });
    };
    const transport = new StreamableHTTPClientTransport(new URL(`/s/${store.slug}/mcp`, TEST_BASE_URL), {
      fetch: fetchInProcess,
      authProvider: provider,
    });
    const client = new Client({ name: "acs-e2e-oauth", version: "1.0.0" });
    await client.connect(transport); // the handshake is transport: no credential needed (B19)
    try {
      await assert.rejects(
        client.callTool({
          name: "prepare_checkout_payment",
          arguments: {
            id: checkout.id,
            buyer_address: walletAddress,
            meta: { "ucp-agent": { profile: AGENT_PROFILE }, "idempotency-key": randomUUID() },
          },
        }),
        UnauthorizedError,
      );
    } finally {
      await client.close();
    }
    assert.equal(redirected.length, 1);
    const authorize = redirected[0]!;
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${TEST_BASE_URL}/ucp/oauth2/authorize`);
    assert.equal(authorize.searchParams.get("scope"), "purchase:complete");
    assert.equal(authorize.searchParams.get("resource"), TEST_BASE_URL);
    assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
    assert.equal(await preparedCount(), 0);
  });
});
