import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { fromBase64, normalizeStructTag, toBase64 } from "@mysten/sui/utils";
import type { JWK } from "jose";

import { agentPurchasesOf } from "@/lib/buyers/agent-purchases";
import { signInBuyer, type BuyerAccount } from "@/lib/buyers/sign-in-buyer";
import {
  getWalletPage,
  payOnWalletPage,
  prepareOnWalletPage,
  recheckWalletPayment,
  saveAllowanceOnWalletPage,
  settleDigestOnWalletPage,
} from "@/lib/checkout/crypto/wallet-page";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { intentSigningBytes, type IntentPayload } from "@/lib/mandates/intent-mandate";
import { currentIntentMandate, saveIntentMandate } from "@/lib/mandates/intent-mandates";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { listBuyerOrders } from "@/lib/orders/list-buyer-orders";
import { createChainPort } from "@/lib/payments/crypto/chain";
import { suiSandbox, type SuiSandbox } from "@/sandbox/sui/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest, TEST_BASE_URL } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { signAllowance } from "../../helpers/crypto-purchase";
import { linkAgent } from "../../helpers/oauth";
import { balances, fund, hideDigest, keypair, randomAddress, SUI, USDC } from "../../helpers/sui-sandbox";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "../checkout/helpers";

// The buyer's wallet page behind a crypto checkout's continue_url (lib/checkout/crypto/wallet-page.ts), in-process on
// the Sui sandbox: the signed-in buyer gets a quote and switches coin; a checkout bound to a buyer refuses everyone
// else; the buyer's signature over the prepared bytes is checked, the server executes them and settles the digest
// (one order, the merchant's balance grows by exactly the legs); the same bytes twice pay once; bad bytes or a bad
// signature are refused before anything reaches the chain; the allowance the buyer signs is kept only when it is
// theirs and untampered.

const N_SUI = 1_000_000_000n;
const PRICE = 1234; // $12.34, no tax, free shipping
const n = (t: string) => normalizeStructTag(t);

let sandbox: SuiSandbox;
let store: Store;
let merchant: string;
let variantId: string;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let cimd: CimdServer;
let seed = 200;

before(async () => {
  await prepareTestDatabase();
  sandbox = await suiSandbox();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  merchant = randomAddress();
  store = await seedStore({
    cryptoEnabled: true,
    cardEnabled: false,
    acceptedCoins: ["USDC", "SUI"],
    suiRecipient: merchant,
  });
  variantId = (await seedProduct(store, { variants: [{ priceMinor: PRICE, inventory: 50 }] })).variants[0]!
    .id;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
  cimd = await startCimdServer();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

type Wallet = { kp: Ed25519Keypair; buyer: BuyerAccount };

/** A buyer signed in with their own funded wallet. */
const newWallet = async (): Promise<Wallet> => {
  seed += 1;
  const kp = keypair(seed);
  const address = kp.toSuiAddress();
  await fund(sandbox.url, address, USDC, [50_000_000n]);
  await fund(sandbox.url, address, SUI, [5n * N_SUI]);
  return { kp, buyer: await signInBuyer(address) };
};

const platform = (extra: Record<string, string> = {}) => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
  ...extra,
});

const createCheckout = async (): Promise<Checkout> => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: platform(),
    body: {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
      payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  return created.body;
};

const tokenOf = (continueUrl: string | undefined): string => {
  assert.ok(continueUrl?.startsWith(`${TEST_BASE_URL}/s/${store.slug}/pay/`), String(continueUrl));
  return continueUrl!.split("/").pop()!;
};

/** An agent with a platform key completes without a digest: the buyer must sign → requires_escalation (unbound). */
const escalatedLink = async (): Promise<{ checkoutId: string; token: string }> => {
  const checkout = await createCheckout();
  const mandate = await signCheckoutMandate(mandateTerms(checkout, store.slug), {
    privateJwk: agentKey.privateJwk,
    kid: agentKey.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const completed = await rest<Checkout & { continue_url?: string }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${checkout.id}/complete`,
    {
      headers: platform(),
      body: {
        payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
        ap2: { checkout_mandate: mandate },
      },
    },
  );
  assert.equal(completed.body.status, "requires_escalation", completed.text);
  return { checkoutId: checkout.id, token: tokenOf(completed.body.continue_url) };
};

/** The buyer's agent (OAuth bearer) prepares the payment: that binds the checkout to the buyer and agent (B17). */
const boundLink = async (wallet: Wallet) => {
  const redirectUri = cimd.url(`/agent-${seed}/callback`);
  const clientId = cimd.document(`/agent-${seed}`, {
    client_name: "Wallet page agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: "none",
  });
  const linked = await linkAgent({
    clientId,
    redirectUri,
    scope: "purchase:complete",
    buyerId: wallet.buyer.id,
  });
  // the buyer gave the agent an allowance (DECISIONS B20: an agent prepares a buyer's payment only within one)
  await saveIntentMandate({
    buyerId: wallet.buyer.id,
    buyerAddress: wallet.buyer.suiAddress,
    clientId,
    envelope: await signAllowance({ kp: wallet.kp, address: wallet.buyer.suiAddress }, clientId),
    now: new Date(),
  });
  const checkout = await createCheckout();
  const prepared = await rest<{ continue_url?: string }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${checkout.id}/payment-intent`,
    {
      headers: {
        authorization: `Bearer ${linked.tokens.access_token}`,
        "idempotency-key": randomUUID(),
      },
      body: { buyer_address: wallet.buyer.suiAddress },
    },
  );
  assert.equal(prepared.status, 200, prepared.text);
  return { checkoutId: checkout.id, token: tokenOf(prepared.body.continue_url), clientId };
};

const pageFor = (token: string, viewer: BuyerAccount | null) =>
  getWalletPage({ slug: store.slug, token, viewer, baseUrl: TEST_BASE_URL });

const sign = async (wallet: Wallet, bytes: string) => {
  const { signature } = await wallet.kp.signTransaction(fromBase64(bytes));
  return signature;
};

const codeOf = async (run: () => Promise<unknown>): Promise<string> => {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    return `${error.code}${error.path ? ` ${error.path}` : ""}`;
  }
  return "ok";
};

const ordersOf = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

describe("the wallet page (lib/checkout/crypto/wallet-page.ts)", () => {
  test("prepares for the signed-in buyer: a quote in USDC (auto), then SUI when the buyer switches; signed out sees no quote; the page binds nothing", async () => {
    const wallet = await newWallet();
    const { checkoutId, token } = await escalatedLink();
    const signedOut = await pageFor(token, null);
    assert.equal(signedOut?.access.kind, "signed_out");
    assert.equal(signedOut?.quote, null);
    assert.equal(signedOut?.totalMinor, PRICE);

    const page = await pageFor(token, wallet.buyer);
    assert.equal(page?.access.kind, "buyer");
    assert.deepEqual(page?.coins, ["USDC", "SUI"]);
    assert.equal(page?.allowance, null, "no agent is bound: no allowance offered");
    assert.deepEqual(
      page?.quote?.legs.map((l) => [l.symbol, l.amount, l.amountText, l.fiatMinor]),
      [["USDC", "12340000", "12.34", PRICE]],
    );
    assert.equal(page?.quote?.coin, "auto");
    const db = await getDb();
    const first = await db.cryptoPayment.findUniqueOrThrow({
      where: { preparedDigest: page!.quote!.digest },
    });
    assert.equal(first.buyerAddress, wallet.buyer.suiAddress);
    assert.equal(first.checkoutId, checkoutId);
    // the same view again shows the same quote (no new prepare while it can be signed)
    assert.equal((await pageFor(token, wallet.buyer))?.quote?.digest, page?.quote?.digest);

    const sui = await prepareOnWalletPage({
      slug: store.slug,
      token,
      viewer: wallet.buyer,
      coin: "SUI",
      baseUrl: TEST_BASE_URL,
    });
    assert.equal(sui.coin, "SUI");
    assert.deepEqual(
      sui.legs.map((l) => l.symbol),
      ["SUI"],
    );
    assert.notEqual(sui.digest, page?.quote?.digest);
    assert.equal((await pageFor(token, wallet.buyer))?.quote?.digest, sui.digest, "the new quote is current");
    assert.equal(
      await codeOf(() =>
        prepareOnWalletPage({
          slug: store.slug,
          token,
          viewer: wallet.buyer,
          coin: "USDT",
          baseUrl: TEST_BASE_URL,
        }),
      ),
      "unsupported_coin $.input_coin_type",
    );
    assert.equal(
      await codeOf(() =>
        prepareOnWalletPage({ slug: store.slug, token, viewer: null, coin: "auto", baseUrl: TEST_BASE_URL }),
      ),
      "identity_required",
    );
    const session = await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
    assert.equal(session.boundPrincipalId, null, "the page does not bind the checkout");
  });

  test("a checkout bound to a buyer: another signed-in buyer is refused everywhere; the bound buyer pays", async () => {
    const owner = await newWallet();
    const stranger = await newWallet();
    const { token, clientId } = await boundLink(owner);
    const refused = await pageFor(token, stranger.buyer);
    assert.equal(refused?.access.kind, "refused");
    assert.equal(refused?.quote, null);
    assert.deepEqual(refused?.owedBack, []);
    assert.equal(
      await codeOf(() =>
        prepareOnWalletPage({
          slug: store.slug,
          token,
          viewer: stranger.buyer,
          coin: "auto",
          baseUrl: TEST_BASE_URL,
        }),
      ),
      "access_denied",
    );
    const mine = await pageFor(token, owner.buyer);
    assert.equal(mine?.access.kind, "buyer");
    assert.equal(mine?.allowance?.agent, clientId);
    const bytes = mine!.quote!.bytes;
    // the stranger cannot push the owner's bytes either (even correctly signed by the owner)
    assert.equal(
      await codeOf(() =>
        payOnWalletPage({
          slug: store.slug,
          token,
          viewer: stranger.buyer,
          transaction: bytes,
          signature: "AA==",
        }),
      ),
      "access_denied",
    );
    const paid = await payOnWalletPage({
      slug: store.slug,
      token,
      viewer: owner.buyer,
      transaction: bytes,
      signature: await sign(owner, bytes),
    });
    assert.equal(paid.kind, "order_placed");
  });

  test("sign → execute → settle: exactly one order, the merchant receives exactly the legs; the same signed bytes posted again (and twice at once) pay once", async () => {
    const wallet = await newWallet();
    const { checkoutId, token } = await escalatedLink();
    const quote = (await pageFor(token, wallet.buyer))!.quote!;
    const before = await balances(sandbox.url, merchant);
    const buyerBefore = await balances(sandbox.url, wallet.buyer.suiAddress);
    const signature = await sign(wallet, quote.bytes);
    const pay = () =>
      payOnWalletPage({ slug: store.slug, token, viewer: wallet.buyer, transaction: quote.bytes, signature });
    const [a, b] = await Promise.all([pay(), pay()]);
    assert.equal(a.kind, "order_placed", JSON.stringify(a));
    assert.deepEqual(b, a, "the racing post answers the same order");
    const again = await pay();
    assert.deepEqual(again, a, "a repeat after the link closed answers the same order");
    assert.equal(await ordersOf(checkoutId), 1);

    const after = await balances(sandbox.url, merchant);
    for (const leg of quote.legs) {
      assert.equal(
        (after.get(n(leg.coinType)) ?? 0n) - (before.get(n(leg.coinType)) ?? 0n),
        BigInt(leg.amount),
        `${leg.symbol} received exactly once`,
      );
    }
    const buyerAfter = await balances(sandbox.url, wallet.buyer.suiAddress);
    assert.equal(
      buyerBefore.get(n(USDC))! - buyerAfter.get(n(USDC))!,
      BigInt(quote.legs[0]!.amount),
      "the buyer paid once",
    );
    const db = await getDb();
    assert.equal(await db.cryptoOwedBack.count({ where: { checkoutId } }), 0, "no second payment owed back");
    const session = await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
    assert.equal(session.status, "completed");
    assert.equal(session.continueToken, null, "the link is closed");
    assert.equal(await pageFor(token, wallet.buyer), null);
  });

  test("two quotes from one wallet's coins: the second, its coins spent by the first, is refused as a price to renew (nothing charged, no order); a new price pays", async () => {
    const wallet = await newWallet();
    const first = await escalatedLink();
    const second = await escalatedLink();
    const quoteA = (await pageFor(first.token, wallet.buyer))!.quote!;
    const quoteB = (await pageFor(second.token, wallet.buyer))!.quote!;
    const paidA = await payOnWalletPage({
      slug: store.slug,
      token: first.token,
      viewer: wallet.buyer,
      transaction: quoteA.bytes,
      signature: await sign(wallet, quoteA.bytes),
    });
    assert.equal(paidA.kind, "order_placed", JSON.stringify(paidA));
    const buyerBefore = await balances(sandbox.url, wallet.buyer.suiAddress);
    const merchantBefore = await balances(sandbox.url, merchant);
    let refused: unknown;
    try {
      await payOnWalletPage({
        slug: store.slug,
        token: second.token,
        viewer: wallet.buyer,
        transaction: quoteB.bytes,
        signature: await sign(wallet, quoteB.bytes),
      });
    } catch (error) {
      refused = error;
    }
    assert.ok(refused instanceof AppError, `expected a refusal, got ${String(refused)}`);
    assert.equal(refused.code, "checkout_not_modifiable", refused.message);
    assert.match(refused.message, /another payment from your wallet/);
    assert.match(refused.message, /nothing was charged/i);
    assert.equal(await ordersOf(second.checkoutId), 0);
    assert.deepEqual(
      await balances(sandbox.url, wallet.buyer.suiAddress),
      buyerBefore,
      "the buyer paid nothing",
    );
    assert.deepEqual(await balances(sandbox.url, merchant), merchantBefore, "the merchant received nothing");
    // the page drops the quote and offers a new price (its prepare): new bytes from the wallet's coins as they are
    // now, and they pay once
    const renewed = await prepareOnWalletPage({
      slug: store.slug,
      token: second.token,
      viewer: wallet.buyer,
      coin: "auto",
      baseUrl: TEST_BASE_URL,
    });
    assert.notEqual(renewed.bytes, quoteB.bytes);
    const paidB = await payOnWalletPage({
      slug: store.slug,
      token: second.token,
      viewer: wallet.buyer,
      transaction: renewed.bytes,
      signature: await sign(wallet, renewed.bytes),
    });
    assert.equal(paidB.kind, "order_placed", JSON.stringify(paidB));
    assert.equal(await ordersOf(second.checkoutId), 1);
  });

  test("an unbound checkout paid on the page becomes the signed-in buyer's own (bound to the buyer alone): My orders lists it, no agent bought it, the creating platform still reads it", async () => {
    const wallet = await newWallet();
    const { checkoutId, token } = await escalatedLink();
    const quote = (await pageFor(token, wallet.buyer))!.quote!;
    const db = await getDb();
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } })).boundPrincipalId,
      null,
      "showing the page binds nothing",
    );
    const paid = await payOnWalletPage({
      slug: store.slug,
      token,
      viewer: wallet.buyer,
      transaction: quote.bytes,
      signature: await sign(wallet, quote.bytes),
    });
    assert.equal(paid.kind, "order_placed", JSON.stringify(paid));
    const orderId = (paid as { orderId: string }).orderId;
    const session = await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
    assert.equal(session.boundPrincipalId, `buyer:${wallet.buyer.id}`);
    const order = await db.order.findUniqueOrThrow({ where: { id: orderId } });
    assert.equal(order.boundPrincipalId, `buyer:${wallet.buyer.id}`);

    const mine = await listBuyerOrders(wallet.buyer.id);
    assert.deepEqual(
      mine.map((o) => [o.id, o.payment.rail]),
      [[orderId, "crypto"]],
    );
    const stranger = await newWallet();
    assert.deepEqual(await listBuyerOrders(stranger.buyer.id), [], "nobody else's");
    const purchases = await agentPurchasesOf(wallet.buyer.id, new Date());
    assert.deepEqual(
      purchases.own.map((p) => [p.orderId, p.paidWith, p.amountMinor, p.store.name, p.allowanceId]),
      [[orderId, "Crypto (USDC)", PRICE, store.name, null]],
    );
    assert.deepEqual(purchases.agents, [], "the buyer's own purchase is no agent's");

    // the platform that created the checkout keeps reading it (B17)
    const read = await rest<Checkout & { order?: { id: string } }>(
      "GET",
      `/s/${store.slug}/checkout-sessions/${checkoutId}`,
      { headers: platform() },
    );
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.order?.id, orderId);
  });

  test("bad input is refused with a clear code before anything reaches the chain; nothing is stored", async () => {
    const wallet = await newWallet();
    const other = await newWallet();
    const { checkoutId, token } = await escalatedLink();
    const quote = (await pageFor(token, wallet.buyer))!.quote!;
    const db = await getDb();
    const rowsBefore = await db.cryptoPayment.findMany({
      where: { checkoutId },
      orderBy: { preparedDigest: "asc" },
    });
    const merchantBefore = await balances(sandbox.url, merchant);
    const pay = (transaction: string, signature: string, viewer: BuyerAccount | null = wallet.buyer) =>
      codeOf(() => payOnWalletPage({ slug: store.slug, token, viewer, transaction, signature }));
    const good = await sign(wallet, quote.bytes);

    assert.equal(await pay("not base64 at all!", good), "invalid_request $.transaction");
    assert.equal(await pay(toBase64(new Uint8Array([1, 2, 3, 4])), good), "invalid_request $.transaction");
    // valid transaction bytes, but not the ones prepared for this checkout: never executed (no open relay)
    const elsewhere = await prepareOnWalletPage({
      slug: store.slug,
      token: (await escalatedLink()).token,
      viewer: wallet.buyer,
      coin: "SUI",
      baseUrl: TEST_BASE_URL,
    });
    assert.equal(
      await pay(elsewhere.bytes, await sign(wallet, elsewhere.bytes)),
      "invalid_request $.transaction",
    );
    assert.equal(await pay(quote.bytes, await sign(other, quote.bytes)), "invalid_request $.signature");
    assert.equal(await pay(quote.bytes, await sign(wallet, elsewhere.bytes)), "invalid_request $.signature");
    assert.equal(await pay(quote.bytes, ""), "invalid_request $.signature");
    assert.equal(await pay(quote.bytes, good, null), "identity_required");
    const late = new Date(Date.parse(quote.expiresAt) + 1_000);
    assert.equal(
      await codeOf(() =>
        payOnWalletPage({
          slug: store.slug,
          token,
          viewer: wallet.buyer,
          transaction: quote.bytes,
          signature: good,
          now: late,
        }),
      ),
      "checkout_not_modifiable $.transaction",
      "an expired quote is not sent",
    );
    assert.equal(await pay(quote.bytes, good, other.buyer), "invalid_request $.transaction");

    const rowsAfter = await db.cryptoPayment.findMany({
      where: { checkoutId },
      orderBy: { preparedDigest: "asc" },
    });
    assert.deepEqual(rowsAfter, rowsBefore, "no payment row changed");
    assert.ok(rowsAfter.every((r) => r.submittedDigest === null && r.settledDigest === null));
    assert.deepEqual(await balances(sandbox.url, merchant), merchantBefore, "nothing moved on the chain");
    assert.equal(await ordersOf(checkoutId), 0);
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } })).status,
      "requires_escalation",
    );
  });

  test("a payment the node cannot see yet is pending (never offered again), and the re-check finishes it once", async () => {
    const wallet = await newWallet();
    const { checkoutId, token } = await escalatedLink();
    const quote = (await pageFor(token, wallet.buyer))!.quote!;
    await hideDigest(sandbox.url, quote.digest, 1);
    const paid = await payOnWalletPage({
      slug: store.slug,
      token,
      viewer: wallet.buyer,
      transaction: quote.bytes,
      signature: await sign(wallet, quote.bytes),
    });
    assert.deepEqual(paid, { kind: "pending", digest: quote.digest });
    const page = await pageFor(token, wallet.buyer);
    assert.deepEqual(page?.pending, { digest: quote.digest });
    assert.equal(page?.quote, null, "no new quote while a payment is pending");
    assert.equal(
      await codeOf(() =>
        prepareOnWalletPage({
          slug: store.slug,
          token,
          viewer: wallet.buyer,
          coin: "auto",
          baseUrl: TEST_BASE_URL,
        }),
      ),
      "checkout_not_modifiable",
    );
    const rechecked = await recheckWalletPayment({ slug: store.slug, token });
    assert.equal(rechecked.kind, "order_placed", JSON.stringify(rechecked));
    assert.equal(await ordersOf(checkoutId), 1);
    assert.deepEqual(await recheckWalletPayment({ slug: store.slug, token }), { kind: "gone" });
  });

  test("a wallet that executes itself hands over the digest: only this checkout's prepared digest from its buyer is taken, the chain decides (not there yet → no order), then one order", async () => {
    const wallet = await newWallet();
    const stranger = await newWallet();
    const { checkoutId, token } = await escalatedLink();
    const quote = (await pageFor(token, wallet.buyer))!.quote!;
    const settle = (digest: string, viewer = wallet.buyer) =>
      settleDigestOnWalletPage({ slug: store.slug, token, viewer, digest });
    assert.equal(await codeOf(() => settle("not a digest")), "invalid_request $.digest");
    const otherDigest = (await pageFor((await escalatedLink()).token, stranger.buyer))!.quote!.digest;
    assert.equal(await codeOf(() => settle(otherDigest)), "invalid_request $.digest", "another checkout's");
    assert.equal(await codeOf(() => settle(quote.digest, stranger.buyer)), "invalid_request $.digest");
    const db = await getDb();
    const unbound = await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
    assert.equal(unbound.boundPrincipalId, null, "a refused digest binds nothing");

    // the page's word is not enough: the chain has no such transaction yet
    const early = await settle(quote.digest);
    assert.notEqual(early.kind, "order_placed", JSON.stringify(early));
    assert.equal(await ordersOf(checkoutId), 0);

    // the wallet signs and executes the prepared bytes itself
    const before = await balances(sandbox.url, merchant);
    await createChainPort({ url: sandbox.url, network: "sandbox" }).executeTransaction(quote.bytes, [
      await sign(wallet, quote.bytes),
    ]);
    const paid = await settle(quote.digest);
    assert.equal(paid.kind, "order_placed", JSON.stringify(paid));
    assert.deepEqual(await settle(quote.digest), paid, "the same digest again answers the same order");
    assert.equal(await ordersOf(checkoutId), 1);
    const after = await balances(sandbox.url, merchant);
    for (const leg of quote.legs) {
      assert.equal(
        (after.get(n(leg.coinType)) ?? 0n) - (before.get(n(leg.coinType)) ?? 0n),
        BigInt(leg.amount),
      );
    }
  });

  test("the allowance for the bound agent: kept when the signed-in wallet signed it untampered; another wallet, a tampered payload or another agent are refused", async () => {
    const owner = await newWallet();
    const other = await newWallet();
    const { token, clientId } = await boundLink(owner);
    const payload = (changes: Partial<IntentPayload> = {}): IntentPayload => ({
      v: 2,
      id: `im_${randomUUID()}`,
      buyer_address: owner.buyer.suiAddress,
      agent: clientId,
      currency: "USD",
      per_order_max: 5_000,
      limits: {},
      merchants: [store.slug],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      nonce: randomUUID(),
      ...changes,
    });
    const envelope = async (p: IntentPayload, kp: Ed25519Keypair, signed: IntentPayload = p) => {
      const { signature } = await kp.signPersonalMessage(intentSigningBytes(signed));
      return Buffer.from(JSON.stringify({ payload: p, signature }), "utf8").toString("base64");
    };
    const save = (env: string, viewer: BuyerAccount = owner.buyer) =>
      codeOf(() => saveAllowanceOnWalletPage({ slug: store.slug, token, viewer, envelope: env }));

    const good = payload();
    // the allowance the buyer gave the agent before it prepared (boundLink)
    const before = await currentIntentMandate(owner.buyer.id, clientId, new Date());
    assert.equal(
      await save(await envelope(good, other.kp)),
      "mandate_invalid_signature $.ap2.intent_mandate",
    );
    assert.equal(
      await save(await envelope({ ...good, per_order_max: 500_000 }, owner.kp, good)),
      "mandate_invalid_signature $.ap2.intent_mandate",
      "tampered after signing",
    );
    const theirs = payload({ buyer_address: other.buyer.suiAddress });
    assert.equal(await save(await envelope(theirs, other.kp)), "mandate_scope_mismatch");
    assert.equal(
      await save(await envelope(payload({ agent: "https://other.example/agent" }), owner.kp)),
      "mandate_scope_mismatch",
    );
    assert.equal(await save(await envelope(good, owner.kp), other.buyer), "access_denied");
    assert.equal(await save("garbage"), "mandate_invalid_signature $.ap2.intent_mandate");
    assert.equal(
      (await currentIntentMandate(owner.buyer.id, clientId, new Date()))?.id,
      before?.id,
      "nothing kept",
    );

    assert.equal(await save(await envelope(good, owner.kp)), "ok");
    const kept = await currentIntentMandate(owner.buyer.id, clientId, new Date());
    assert.equal(kept?.id, good.id);
    assert.equal(kept?.perOrderMax, 5_000);
    assert.equal((await pageFor(token, owner.buyer))?.allowance?.current?.id, good.id);

    // an unbound checkout has no agent to give an allowance to
    const unbound = await escalatedLink();
    assert.equal(
      await codeOf(async () =>
        saveAllowanceOnWalletPage({
          slug: store.slug,
          token: unbound.token,
          viewer: owner.buyer,
          envelope: await envelope(payload(), owner.kp),
        }),
      ),
      "invalid_request",
    );
  });
});
