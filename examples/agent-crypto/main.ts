// A shopping agent paying with crypto (svc.crypto, Sui) in a store of a service running in test mode (`npm start`):
// link to the buyer over OAuth (authorization code + PKCE, this script being a loopback client with a client
// metadata document), then search → checkout → payment-intent with the buyer's spend allowance for this agent (AP2
// intent mandate, signed by the buyer's wallet; without one an agent cannot pay for a buyer) → the buyer's wallet
// signs and submits the transaction to the Sui sandbox → complete with the transaction digest. Done over REST, then over MCP (the SDK's Client), each printing `order <id>`; exits 0.
//
//   SUI_SANDBOX_URL=http://127.0.0.1:… npx tsx examples/agent-crypto/main.ts [BASE_URL]
//   (SUI_SANDBOX_URL: the "Sui sandbox" URL `npm start` printed; BASE_URL, STORE, QUERY, ONLY=rest|mcp optional)
//
// Test mode stands in for two things a real deployment leaves to the buyer: the buyer's consent is given by the
// admin CLI's `approve-authorization` (the sandbox buyer signs in with the public sandbox wallet and clicks Allow,
// through the same core as the consent page), and the buyer's wallet is that public sandbox key, which `npm start`
// funds on the sandbox chain. Outside test mode both are refused.

// first: on a Node too old for the service, a message naming the version needed and how to get it
import "../../scripts/check-node.mjs";

import { spawn } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

import {
  canonicalJson,
  createUcpTransport,
  mandateTerms,
  newIdempotencyKey,
  signCheckoutMandate,
  startAgentProfileServer,
  type AgentKey,
  type Checkout,
} from "@agent-commerce/agent-kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { fromBase64 } from "@mysten/sui/utils";

import { findSandbox, findService, orExit } from "../shared/local-service";

const service = await orExit(findService(process.argv[2] ?? process.env.BASE_URL));
const baseUrl = service.baseUrl;
const suiUrl = await orExit(findSandbox(service, "SUI_SANDBOX_URL", "Sui sandbox"));
const store = process.env.STORE ?? "summit-trail-outfitters";
const only = process.env.ONLY;

// The buyer's wallet: the service's public sandbox key (lib/buyers/sandbox-wallet.ts), 32 bytes of its seed text.
// Anyone may sign with it; the service accepts its address in test mode only.
const seed = new TextEncoder().encode("agent-commerce-service sandbox buyer wallet v1");
const wallet = Ed25519Keypair.fromSecretKey(
  Uint8Array.from({ length: 32 }, (_, i) => seed[i % seed.length]!),
);
const buyerAddress = wallet.toSuiAddress();
const chain = new SuiGrpcClient({ network: "localnet", baseUrl: suiUrl });

type Prepared = { checkout_id: string; transaction: { bytes: string; digest: string }; expires_at: string };

// #region readme-crypto-link
/** OAuth 2.1 as a loopback public client (test mode accepts http://127.0.0.1 client metadata documents). */
const linkToBuyer = async (): Promise<{ accessToken: string; clientId: string }> => {
  let received: (url: URL) => void = () => undefined;
  const callback = new Promise<URL>((resolve) => (received = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", clientBase);
    if (url.pathname === "/client.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(clientMetadata));
      return;
    }
    res.writeHead(url.pathname === "/callback" ? 200 : 404, { "content-type": "text/plain" });
    res.end(url.pathname === "/callback" ? "You can close this window." : "not found");
    if (url.pathname === "/callback") received(url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const clientBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `${clientBase}/client.json`;
  const redirectUri = `${clientBase}/callback`;
  const clientMetadata = {
    client_id: clientId,
    client_name: "Example crypto agent",
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code"],
    response_types: ["code"],
  };
  try {
    const as = (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
      authorization_endpoint: string;
      token_endpoint: string;
    };
    const verifier = randomBytes(32).toString("base64url");
    const state = randomBytes(16).toString("base64url");
    const authorize = new URL(as.authorization_endpoint);
    authorize.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "purchase:complete",
      state,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    // the service parks the request and sends the buyer's browser to its consent page
    const started = await fetch(authorize, { redirect: "manual" });
    const consent = new URL(started.headers.get("location") ?? "", baseUrl);
    const requestId = consent.searchParams.get("request");
    if (!requestId) throw new Error(`no consent page (${started.status}): ${await started.text()}`);
    // test mode: the sandbox buyer signs in and allows (the admin CLI, in the server); the browser's redirect
    // then brings the code to our redirect_uri
    const approved = JSON.parse(
      await runAdmin(["approve-authorization", "--request", requestId, "--json"]),
    ) as { location: string; buyer_address: string };
    if (approved.buyer_address !== buyerAddress) throw new Error("the consent was given by another wallet");
    await fetch(approved.location);
    const answer = await callback;
    if (answer.searchParams.get("state") !== state) throw new Error("state mismatch");
    if (answer.searchParams.get("iss") !== as.issuer) throw new Error("iss mismatch (RFC 9207)");
    const token = await fetch(as.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: answer.searchParams.get("code") ?? "",
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    const tokens = (await token.json()) as { access_token?: string };
    if (!tokens.access_token) throw new Error(`token endpoint: ${JSON.stringify(tokens)}`);
    return { accessToken: tokens.access_token, clientId };
  } finally {
    server.close();
  }
};
// #endregion readme-crypto-link

/** `npm run admin -- …` of the service this script belongs to (the command runs inside `npm start`). */
const runAdmin = (args: string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    const cwd = fileURLToPath(new URL("../..", import.meta.url));
    const child = spawn("npm", ["run", "--silent", "admin", "--", ...args], { cwd });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`admin ${args[0]} (exit ${code}): ${err.trim()}`)),
    );
  });

// #region readme-crypto-pay
/** The buyer's wallet signs the prepared bytes as they are and submits them to the chain (here the sandbox). */
const signAndSubmit = async (prepared: Prepared): Promise<string> => {
  const bytes = fromBase64(prepared.transaction.bytes);
  const { signature } = await wallet.signTransaction(bytes);
  const executed = await chain.core.executeTransaction({ transaction: bytes, signatures: [signature] });
  const tx = executed.$kind === "Transaction" ? executed.Transaction : executed.FailedTransaction;
  if (!tx.status.success) throw new Error(`the transaction failed on chain: ${JSON.stringify(tx.status)}`);
  return tx.digest; // equals prepared.transaction.digest: the wallet signed the bytes unchanged
};

/** The buyer's spend allowance (AP2 intent mandate), signed with the wallet as a personal message over its JCS. */
const intentMandate = async (agent: string, merchant: string, currency: string): Promise<string> => {
  const payload = {
    v: 2,
    id: `intent-${randomUUID()}`,
    buyer_address: buyerAddress,
    agent, // our OAuth client_id
    currency,
    per_order_max: 100_000, // minor units of currency
    limits: { day: 200_000 },
    merchants: [merchant],
    expires_at: new Date(Date.now() + 60 * 60 * 1000).toISOString(),
    nonce: randomUUID(),
  };
  const { signature } = await wallet.signPersonalMessage(new TextEncoder().encode(canonicalJson(payload)));
  return Buffer.from(JSON.stringify({ payload, signature })).toString("base64");
};

/** complete_checkout's body: the digest as the svc.crypto credential, and both mandates. */
const cryptoCompletion = async (
  ready: Checkout,
  digest: string,
  agent: { clientId: string; key: AgentKey },
) => ({
  payment: {
    instruments: [{ handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } }],
  },
  ap2: {
    checkout_mandate: await signCheckoutMandate(mandateTerms(ready, store), {
      ...agent.key,
      exp: Math.floor(Date.now() / 1000) + 300,
    }),
    intent_mandate: await intentMandate(agent.clientId, store, ready.currency),
  },
});
// #endregion readme-crypto-pay

const { accessToken, clientId } = await linkToBuyer();
const profile = await startAgentProfileServer(); // the agent's UCP profile: its checkout-mandate key
const agent = { clientId, key: profile.key };
const destination = {
  street_address: "1 Market St",
  address_locality: "San Francisco",
  address_region: "CA",
  postal_code: "94105",
  address_country: "US",
};
const checkoutBody = (variantId: string) => ({
  line_items: [{ item: { id: variantId }, quantity: 1 }],
  buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
});
type Found = { products: { variants: { id: string; availability?: { available?: boolean } }[] }[] };
const inStock = ({ products }: Found): string => {
  const variant = products.flatMap((p) => p.variants).find((v) => v.availability?.available !== false);
  if (!variant) throw new Error("nothing in stock matches the query");
  return variant.id;
};
const assertReady = (checkout: Checkout): Checkout => {
  if (checkout.status !== "ready_for_complete") throw new Error(JSON.stringify(checkout.messages));
  return checkout;
};

if (only !== "mcp") {
  // REST with the buyer's bearer ALONE: the checkout is bound to this buyer and agent from its creation
  const ucp = createUcpTransport({ baseUrl, agentProfileUrl: profile.profileUrl });
  const credentials = { authorization: `Bearer ${accessToken}` };
  const at = `/s/${store}`;
  const found = await ucp.rest<Found>(
    "POST",
    `${at}/catalog/search`,
    { query: process.env.QUERY ?? "jacket" },
    {
      credentials,
      mutates: false,
    },
  );
  const created = await ucp.rest<Checkout>("POST", `${at}/checkout-sessions`, checkoutBody(inStock(found)), {
    credentials,
  });
  const path = `${at}/checkout-sessions/${created.id}`;
  const shipTo = await ucp.rest<Checkout>(
    "PUT",
    path,
    { fulfillment: { methods: [{ type: "shipping", destinations: [destination] }] } },
    { credentials },
  );
  const option = shipTo.fulfillment?.methods?.[0]?.groups?.[0]?.options?.[0];
  const ready = assertReady(
    await ucp.rest<Checkout>(
      "PUT",
      path,
      {
        fulfillment: {
          methods: [{ type: "shipping", groups: [{ selected_option_id: option?.id ?? null }] }],
        },
        payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
      },
      { credentials },
    ),
  );
  // the buyer's allowance for this agent rides with the prepare (signed by their wallet, as on the spend-cap
  // page): an agent prepares a buyer's payment only within one, and it is kept from then on
  const prepared = await ucp.rest<Prepared>(
    "POST",
    `${path}/payment-intent`,
    {
      buyer_address: buyerAddress,
      ap2: { intent_mandate: await intentMandate(agent.clientId, store, ready.currency) },
    },
    { credentials },
  );
  const digest = await signAndSubmit(prepared);
  const paid = await ucp.rest<Checkout>(
    "POST",
    `${path}/complete`,
    await cryptoCompletion(ready, digest, agent),
    {
      credentials,
    },
  );
  if (paid.status !== "completed" || !paid.order) throw new Error(JSON.stringify(paid.messages));
  console.log(`order ${paid.order.id} (REST, checkout ${ready.id}, transaction ${digest})`);
}

if (only !== "rest") {
  // MCP: the store's endpoint with the SDK's client, the bearer as a static header, a fresh Request-Id per request
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/s/${store}/mcp`), {
    requestInit: {
      headers: { authorization: `Bearer ${accessToken}`, "ucp-agent": `profile="${profile.profileUrl}"` },
    },
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set("request-id", randomUUID());
      return fetch(url, { ...init, headers });
    },
  });
  const mcp = new Client({ name: "example-crypto-agent", version: "1.0.0" });
  await mcp.connect(transport);
  const tool = async <T>(name: string, args: object, mutates = true): Promise<T> => {
    const meta = {
      "ucp-agent": { profile: profile.profileUrl },
      ...(mutates && { "idempotency-key": newIdempotencyKey() }),
    };
    const result = await mcp.callTool({ name, arguments: { meta, ...args } });
    const body = result.structuredContent as T & { ucp?: { status?: string } };
    if (result.isError || body?.ucp?.status === "error")
      throw new Error(`${name}: ${JSON.stringify(result)}`);
    return body;
  };
  const found = await tool<Found>(
    "search_catalog",
    { catalog: { query: process.env.QUERY ?? "jacket" } },
    false,
  );
  const created = await tool<Checkout>("create_checkout", { checkout: checkoutBody(inStock(found)) });
  const shipTo = await tool<Checkout>("update_checkout", {
    id: created.id,
    checkout: { fulfillment: { methods: [{ type: "shipping", destinations: [destination] }] } },
  });
  const option = shipTo.fulfillment?.methods?.[0]?.groups?.[0]?.options?.[0];
  const ready = assertReady(
    await tool<Checkout>("update_checkout", {
      id: created.id,
      checkout: {
        fulfillment: {
          methods: [{ type: "shipping", groups: [{ selected_option_id: option?.id ?? null }] }],
        },
        payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
      },
    }),
  );
  const prepared = await tool<Prepared>("prepare_checkout_payment", {
    id: ready.id,
    buyer_address: buyerAddress,
    ap2: { intent_mandate: await intentMandate(agent.clientId, store, ready.currency) },
  });
  const digest = await signAndSubmit(prepared);
  const paid = await tool<Checkout>("complete_checkout", {
    id: ready.id,
    checkout: await cryptoCompletion(ready, digest, agent),
  });
  if (paid.status !== "completed" || !paid.order) throw new Error(JSON.stringify(paid.messages));
  console.log(`order ${paid.order.id} (MCP, checkout ${ready.id}, transaction ${digest})`);
  await mcp.close();
}
await profile.close();
