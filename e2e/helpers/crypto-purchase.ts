import { randomUUID } from "node:crypto";
import { after, before } from "node:test";

import { checkoutMandate } from "@agent-commerce/agent-kit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { fromBase64 } from "@mysten/sui/utils";

import { signInBuyer } from "@/lib/buyers/sign-in-buyer";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { encodeIntentMandate, intentSigningBytes, type IntentPayload } from "@/lib/mandates/intent-mandate";
import { saveIntentMandate } from "@/lib/mandates/intent-mandates";

import type { Checkout } from "../api/checkout/helpers";
import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../factories";
import { closeTestDatabase, prepareTestDatabase } from "../support/test-db";
import { profileServer } from "./agent-profile-server";
import { rest } from "./app-client";
import { startCimdServer, type CimdServer } from "./cimd-server";
import { linkAgent } from "./oauth";
import { fund, randomAddress, SUI, USDC, USDT } from "./sui-sandbox";

// A crypto purchase as an outside agent and the buyer's wallet make it, for the in-process tests: a crypto store, a
// buyer whose wallet key the test holds (funded on the Sui sandbox, a fake fullnode), that buyer's bearer for an
// agent (the real OAuth code flow), the wallet signing and submitting the prepared bytes through the official
// client, the buyer's signed allowance (AP2 intent mandate) and the completion body.

/**
 * What every crypto purchase test file starts with: the test database, a CIMD server for the buyers' agents' client
 * documents, and a platform key that may complete purchases. Registers the file's before/after; the handle is
 * filled in before its first test.
 */
export const cryptoTestSetup = (): { cimd: CimdServer; apiKey: string } => {
  const setup = { apiKey: "" } as { cimd: CimdServer; apiKey: string };
  before(async () => {
    await prepareTestDatabase();
    setup.cimd = await startCimdServer();
    setup.apiKey = (await seedPlatformKey(["purchase:complete"])).key;
  });
  after(async () => {
    await setup.cimd?.close();
    await closeTestDatabase();
  });
  return setup;
};

export const N_SUI = 1_000_000_000n;
export const USDC_UNIT = 1_000_000n;

export const sandboxUrl = (): string => {
  const url = process.env.SUI_SANDBOX_URL;
  if (!url) throw new Error("SUI_SANDBOX_URL is not set (e2e/support/sui-sandbox-env.ts starts the sandbox)");
  return url;
};

/** A test-mode store paying out to a fresh address, accepting `coins` in that order; one product at `priceMinor`. */
export const seedCryptoStore = async ({
  coins = ["USDC", "USDT", "SUI"],
  priceMinor = 2500,
  currency = "USD",
  card = false,
}: { coins?: string[]; priceMinor?: number; currency?: string; card?: boolean } = {}) => {
  const payout = randomAddress();
  const store: Store = await seedStore({
    cryptoEnabled: true,
    cardEnabled: card,
    acceptedCoins: coins,
    suiRecipient: payout,
    currency,
  });
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  const product = await seedProduct(store, {
    title: "Ceramic mug",
    variants: [{ priceMinor, inventory: 1000 }],
  });
  return { store, payout, variantId: product.variants[0]!.id };
};

export type Wallet = { kp: Ed25519Keypair; address: string };

/** A buyer's wallet of its own (test files share one sandbox), funded with SUI for gas and the given coins. */
export const newWallet = async (
  funds: { sui?: bigint[]; usdc?: bigint[]; usdt?: bigint[] } = {},
): Promise<Wallet> => {
  const kp = Ed25519Keypair.generate();
  const address = kp.toSuiAddress();
  const url = sandboxUrl();
  await fund(url, address, SUI, funds.sui ?? [5n * N_SUI]);
  if (funds.usdc?.length) await fund(url, address, USDC, funds.usdc);
  if (funds.usdt?.length) await fund(url, address, USDT, funds.usdt);
  return { kp, address };
};

export type BuyerAgent = {
  wallet: Wallet;
  buyerId: string;
  clientId: string;
  bearer: string;
};

/** The buyer (signed in with `wallet`) links an agent registered at `path` on the CIMD server; returns its bearer. */
export const linkBuyerAgent = async (
  cimd: CimdServer,
  wallet: Wallet,
  path = `/agent-${randomUUID().slice(0, 8)}`,
  buyerId?: string,
  /**
   * The buyer also signs the agent an allowance without limits (every store, one hour), as a buyer who lets an agent
   * pay must (DECISIONS B20: without one an agent cannot pay for the buyer). false: linked only.
   */
  { allowance = true }: { allowance?: boolean } = {},
): Promise<BuyerAgent> => {
  const buyer = buyerId ?? (await signInBuyer(wallet.address)).id;
  const redirectUri = cimd.url(`${path}/callback`);
  const clientId = cimd.document(path, {
    client_name: "Crypto test agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code"],
    token_endpoint_auth_method: "none",
  });
  const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete", buyerId: buyer });
  if (allowance) {
    await saveIntentMandate({
      buyerId: buyer,
      buyerAddress: wallet.address,
      clientId,
      envelope: await signAllowance(wallet, clientId),
      now: new Date(),
    });
  }
  return { wallet, buyerId: buyer, clientId, bearer: `Bearer ${linked.tokens.access_token}` };
};

/** The agent profile that signs checkout mandates (its key is the profile server's). */
export const signedProfile = async () => {
  const server = await profileServer();
  return {
    url: server.url("signed"),
    signer: { privateJwk: server.agentKey.privateJwk, kid: server.agentKey.kid },
  };
};

/** Headers of a buyer-bound call: the bearer alone, the signing agent's profile, a fresh idempotency key. */
export const bearerHeaders = async (bearer: string, extra: Record<string, string> = {}) => ({
  authorization: bearer,
  "ucp-agent": `profile="${(await signedProfile()).url}"`,
  "idempotency-key": randomUUID(),
  ...extra,
});

export const ADDRESS = {
  line1: "1 Market St",
  city: "San Francisco",
  region: "CA",
  postal_code: "94105",
  country: "US",
};

/** A ready checkout created with a platform key (unbound until the first buyer-bound call). */
export const createCryptoCheckout = async (
  store: Store,
  apiKey: string,
  variantId: string,
  quantity = 1,
): Promise<Checkout> => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: {
      "x-api-key": apiKey,
      "ucp-agent": `profile="${(await signedProfile()).url}"`,
      "idempotency-key": randomUUID(),
    },
    body: {
      line_items: [{ item: { id: variantId }, quantity }],
      buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
      shipping_address: ADDRESS,
      shipping_method_id: "standard",
      payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
    },
  });
  if (created.body.status !== "ready_for_complete") {
    throw new Error(`checkout not ready: ${created.status} ${created.text}`);
  }
  return created.body;
};

export type Prepared = {
  checkout_id: string;
  buyer_address: string;
  transaction: { bytes: string; digest: string };
  quote: {
    mode: string;
    currency: string;
    total: number;
    legs: { coin_type: string; symbol: string; decimals: number; amount: string; fiat_amount: number }[];
  };
  expires_at: string;
  continue_url: string;
};

export const walletClient = () => new SuiGrpcClient({ network: "localnet", baseUrl: sandboxUrl() });

/** What a wallet does with prepared bytes: sign them as they are and submit them; returns the digest. */
export const signAndSubmit = async (wallet: Wallet, bytesBase64: string): Promise<string> => {
  const bytes = fromBase64(bytesBase64);
  const { signature } = await wallet.kp.signTransaction(bytes);
  const result = await walletClient().core.executeTransaction({
    transaction: bytes,
    signatures: [signature],
  });
  const tx = result.$kind === "Transaction" ? result.Transaction : result.FailedTransaction;
  return tx.digest;
};

/** A wallet that re-gasses the prepared transaction (another gas budget) before signing: another digest. */
export const regasAndSubmit = async (wallet: Wallet, bytesBase64: string): Promise<string> => {
  const tx = Transaction.from(fromBase64(bytesBase64));
  tx.setGasBudget(12_000_000n);
  const bytes = await tx.build();
  const { signature } = await wallet.kp.signTransaction(bytes);
  const result = await walletClient().core.executeTransaction({
    transaction: bytes,
    signatures: [signature],
  });
  const done = result.$kind === "Transaction" ? result.Transaction : result.FailedTransaction;
  return done.digest;
};

/**
 * A wallet submitting prepared bytes after another transaction of the same buyer spent their gas coin: it pays gas
 * with the current version of its largest SUI coin (as a wallet does when it re-gasses), everything else unchanged.
 */
export const submitWithFreshGas = async (wallet: Wallet, bytesBase64: string): Promise<string> => {
  const tx = Transaction.from(fromBase64(bytesBase64));
  const client = walletClient();
  const { objects } = await client.core.listCoins({ owner: wallet.address, coinType: "0x2::sui::SUI" });
  const gas = [...objects].sort((a, b) => (BigInt(b.balance) > BigInt(a.balance) ? 1 : -1))[0];
  if (!gas) throw new Error("the wallet has no SUI coin for gas");
  tx.setGasPayment([{ objectId: gas.objectId, version: gas.version, digest: gas.digest }]);
  const bytes = await tx.build();
  const { signature } = await wallet.kp.signTransaction(bytes);
  const result = await client.core.executeTransaction({ transaction: bytes, signatures: [signature] });
  const done = result.$kind === "Transaction" ? result.Transaction : result.FailedTransaction;
  return done.digest;
};

/** The buyer's allowance for `agent`, signed by `wallet` (overrides change the payload after or before signing). */
export const signAllowance = async (
  wallet: Wallet,
  agent: string,
  overrides: Partial<IntentPayload> = {},
  { tamper }: { tamper?: Partial<IntentPayload> } = {},
): Promise<string> => {
  const payload: IntentPayload = {
    v: 2,
    id: `im_${randomUUID()}`,
    buyer_address: wallet.address,
    agent,
    currency: "USD",
    limits: {},
    merchants: "*",
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    nonce: randomUUID(),
    ...overrides,
  };
  const { signature } = await wallet.kp.signPersonalMessage(intentSigningBytes(payload));
  return encodeIntentMandate({ ...payload, ...tamper }, signature);
};

/** The buyer signs an allowance for their agent with their wallet, and it is stored as the spend-cap page stores it. */
export const allow = async (agent: BuyerAgent, overrides: Partial<IntentPayload> = {}) => {
  const envelope = await signAllowance(agent.wallet, agent.clientId, overrides);
  const row = await saveIntentMandate({
    buyerId: agent.buyerId,
    buyerAddress: agent.wallet.address,
    clientId: agent.clientId,
    envelope,
    now: new Date(),
  });
  return { id: row.id, envelope };
};

/** The crypto completion body: the digest as the credential token, both mandates. */
export const cryptoCompletionBody = async (
  checkout: Checkout,
  storeSlug: string,
  digest: string,
  intentMandate: string | null,
) => ({
  payment: {
    instruments: [{ handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } }],
  },
  ap2: {
    checkout_mandate: await checkoutMandate(
      checkout as Parameters<typeof checkoutMandate>[0],
      storeSlug,
      (await signedProfile()).signer,
    ),
    ...(intentMandate ? { intent_mandate: intentMandate } : {}),
  },
});

/** The agent asks for the payment's bytes with the buyer's bearer (REST `payment-intent`). */
export const prepareWithBearer = async (
  slug: string,
  checkoutId: string,
  agent: BuyerAgent,
  body: Record<string, unknown> = {},
) =>
  rest<Prepared>("POST", `/s/${slug}/checkout-sessions/${checkoutId}/payment-intent`, {
    headers: await bearerHeaders(agent.bearer),
    body: { buyer_address: agent.wallet.address, ...body },
  });

/** The agent completes with the digest the wallet submitted and the buyer's allowance (or none). */
export const completeWithDigest = async (
  slug: string,
  checkout: Checkout,
  agent: BuyerAgent,
  digest: string,
  intent: string | null,
  headers: Record<string, string> = {},
) =>
  rest<Checkout & { order?: { id: string; permalink_url: string } }>(
    "POST",
    `/s/${slug}/checkout-sessions/${checkout.id}/complete`,
    {
      headers: await bearerHeaders(agent.bearer, headers),
      body: await cryptoCompletionBody(checkout, slug, digest, intent),
    },
  );

/**
 * The prepare's reservation lapses, as hours later (its quote window and grace over): the payment, if it lands, is
 * judged on what the allowances allow then (DECISIONS B20).
 */
export const lapseReservations = async (checkoutId: string): Promise<void> => {
  await (
    await getDb()
  ).spendEntry.updateMany({
    where: { heldCheckoutId: checkoutId, state: "held" },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
};
