import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { fromBase64, normalizeStructTag } from "@mysten/sui/utils";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { listBuyerOrders } from "@/lib/orders/list-buyer-orders";
import { refundOrder } from "@/lib/orders/refund-order";
import { buildPayment } from "@/lib/payments/crypto/build-payment";
import { chainForNetwork } from "@/lib/payments/crypto/chain";
import { closeOwedBack } from "@/lib/payments/crypto/owed-back";

import { rest } from "../../helpers/app-client";
import {
  bearerHeaders,
  createCryptoCheckout,
  cryptoCompletionBody,
  cryptoTestSetup,
  linkBuyerAgent,
  newWallet,
  sandboxUrl,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  USDC_UNIT,
  walletClient,
  type Prepared,
  type Wallet,
} from "../../helpers/crypto-purchase";
import { runAdminCaptured } from "../../helpers/run-admin";
import { balances, fund, SUI, USDC } from "../../helpers/sui-sandbox";
import type { Checkout } from "../checkout/helpers";

// Crypto owed back to the buyer: a refund of a crypto order is written as intent first and recorded as a pending
// merchant action (the service holds no keys that could send coins), listed to the merchant, and closed only by a
// transaction that really paid the buyer back — verified on the chain (the Sui sandbox, a fake fullnode).

const suite = cryptoTestSetup();

/** A crypto order paid 25.00 USD in USDC, and the merchant's wallet (its key, funded for gas). */
const paidOrder = async () => {
  const merchantKp = Ed25519Keypair.generate();
  const shop = await seedCryptoStore();
  const db = await getDb();
  const store: Store = await db.store.update({
    where: { id: shop.store.id },
    data: { suiRecipient: merchantKp.toSuiAddress() },
  });
  // gas, and USDC of its own beyond what sales bring in (refunds can come from any of its coins)
  await fund(sandboxUrl(), merchantKp.toSuiAddress(), SUI, [2_000_000_000n]);
  await fund(sandboxUrl(), merchantKp.toSuiAddress(), USDC, [200n * USDC_UNIT]);
  const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
  const checkout: Checkout = await createCryptoCheckout(store, suite.apiKey, shop.variantId);
  const prepared = await rest<Prepared>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${checkout.id}/payment-intent`,
    { headers: await bearerHeaders(agent.bearer), body: { buyer_address: agent.wallet.address } },
  );
  const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
  const done = await rest<Checkout & { order: { id: string } }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${checkout.id}/complete`,
    {
      headers: await bearerHeaders(agent.bearer),
      body: await cryptoCompletionBody(
        checkout,
        store.slug,
        digest,
        await signAllowance(agent.wallet, agent.clientId),
      ),
    },
  );
  assert.equal(done.body.status, "completed", done.text);
  const merchant: Wallet = { kp: merchantKp, address: merchantKp.toSuiAddress() };
  return {
    store,
    buyer: agent.wallet,
    buyerId: agent.buyerId,
    merchant,
    orderId: done.body.order.id,
    checkoutId: checkout.id,
    bearer: agent.bearer,
  };
};

/** The merchant sends USDC base units from its wallet to each recipient, in one transaction; returns the digest. */
const sendBackMany = async (from: Wallet, to: [string, bigint][]): Promise<string> => {
  const built = await buildPayment(chainForNetwork("sandbox"), {
    sender: from.address,
    legs: to.map(([address, amount]) => ({ merchant: address, coinType: normalizeStructTag(USDC), amount })),
  });
  const bytes = fromBase64(built.bytes);
  const { signature } = await from.kp.signTransaction(bytes);
  const result = await walletClient().core.executeTransaction({
    transaction: bytes,
    signatures: [signature],
  });
  return (result.$kind === "Transaction" ? result.Transaction : result.FailedTransaction).digest;
};

const sendBack = (from: Wallet, to: string, amount: bigint) => sendBackMany(from, [[to, amount]]);

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return "resolved";
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

describe("crypto owed back", () => {
  test("a full refund of a crypto order is recorded as owed back (the amount of each coin, the buyer's address); the merchant's refund transaction closes it, verified on the chain; the CLI lists and closes", async () => {
    const { store, buyer, buyerId, merchant, orderId, checkoutId } = await paidOrder();
    // the platform created the checkout; the buyer's agent bound and paid it, so it is the buyer's order too
    const seen = async () => (await listBuyerOrders(buyerId)).find((o) => o.id === orderId);
    assert.ok(await seen(), "the order is on the buyer's page");
    assert.deepEqual((await seen())!.cryptoOwedBack, []);
    const refunded = await refundOrder(store.slug, orderId, { reason: "damaged" });
    assert.ok(refunded);
    const db = await getDb();
    const [owed] = await db.cryptoOwedBack.findMany({ where: { checkoutId } });
    assert.ok(owed);
    assert.equal(owed.status, "open");
    assert.equal(owed.buyerAddress, buyer.address);
    assert.deepEqual(
      (owed.amounts as { symbol: string; amount: string }[]).map((a) => [a.symbol, a.amount]),
      [["USDC", "25000000"]],
    );
    // refunding again is refused: the order is already fully refunded, nothing more is owed
    assert.equal(await codeOf(refundOrder(store.slug, orderId)), "conflict");
    assert.equal(await db.cryptoOwedBack.count({ where: { checkoutId } }), 1);

    const view = (await seen())!;
    assert.deepEqual(
      view.cryptoOwedBack.map((r) => [r.status, r.amounts.map((a) => a.text)]),
      [["open", ["25 USDC"]]],
    );
    assert.deepEqual(
      view.refunds.map((r) => [r.status, r.amountMinor]),
      [["pending", 2500]],
      "on its way until the merchant sends it",
    );
    const listed = await runAdminCaptured("owed-back", "--store", store.slug, "--json");
    assert.equal(listed.code, 0, listed.err);
    assert.deepEqual(
      (JSON.parse(listed.out) as { id: string }[]).map((r) => r.id),
      [owed.id],
    );

    const before = (await balances(sandboxUrl(), buyer.address)).get(normalizeStructTag(USDC)) ?? 0n;
    const refundDigest = await sendBack(merchant, buyer.address, 25_000_000n);
    assert.equal(
      (await balances(sandboxUrl(), buyer.address)).get(normalizeStructTag(USDC)),
      before + 25_000_000n,
    );
    const closed = await runAdminCaptured(
      "close-owed-back",
      "--store",
      store.slug,
      "--id",
      owed.id,
      "--digest",
      refundDigest,
      "--json",
    );
    assert.equal(closed.code, 0, closed.err);
    const row = await db.cryptoOwedBack.findUniqueOrThrow({ where: { id: owed.id } });
    assert.equal(row.status, "closed");
    assert.equal(row.refundDigest, refundDigest);
    const after = (await seen())!;
    assert.deepEqual(
      after.cryptoOwedBack.map((r) => [r.status, r.refundDigest]),
      [["closed", refundDigest]],
    );
    assert.deepEqual(
      after.refunds.map((r) => r.status),
      ["completed"],
    );
    const open = await runAdminCaptured("owed-back", "--store", store.slug, "--json");
    assert.deepEqual(JSON.parse(open.out), []);
    // closing again with the same digest is a no-op; with another one it is refused
    assert.equal((await closeOwedBack(db, store, { id: owed.id, refundDigest })).status, "closed");
    const other = await sendBack(merchant, buyer.address, 1n);
    assert.equal(
      await codeOf(closeOwedBack(db, store, { id: owed.id, refundDigest: other })),
      "invalid_request",
    );
  });

  test("the buyer's agent asks to cancel its crypto order: canceled at once, the whole payment owed back to the buyer's wallet; once the merchant sends it, the buyer has on the chain what they had before paying", async () => {
    const { store, buyer, merchant, orderId, checkoutId, bearer } = await paidOrder();
    const usdc = async () =>
      (await balances(sandboxUrl(), buyer.address)).get(normalizeStructTag(USDC)) ?? 0n;
    const afterPaying = await usdc();
    const asked = await rest<{ requests?: { status: string; amount?: number }[] }>(
      "POST",
      `/s/${store.slug}/orders/${orderId}/cancellation-requests`,
      { headers: await bearerHeaders(bearer), body: { reason: "Ordered by mistake" } },
    );
    assert.equal(asked.status, 201, asked.text);
    assert.deepEqual(
      asked.body.requests?.map((r) => [r.status, r.amount]),
      [["approved", 2500]],
    );
    const db = await getDb();
    const [owed] = await db.cryptoOwedBack.findMany({ where: { checkoutId } });
    assert.ok(owed, "the money owed back is recorded with the cancellation");
    assert.equal(owed.buyerAddress, buyer.address);
    assert.deepEqual(
      (owed.amounts as { symbol: string; amount: string }[]).map((a) => [a.symbol, a.amount]),
      [["USDC", "25000000"]],
    );
    const digest = await sendBack(merchant, buyer.address, 25_000_000n);
    assert.equal((await closeOwedBack(db, store, { id: owed.id, refundDigest: digest })).status, "closed");
    assert.equal(await usdc(), afterPaying + 25_000_000n, "net charged on the chain: 0");
  });

  test("a transaction that pays back too little, sent before the record, not final, not a digest, or already closing another record does not close it; another store's record is not_found", async () => {
    const first = await paidOrder();
    const db = await getDb();
    // a transfer to the buyer made before the refund was recorded cannot pay it back
    const early = await sendBack(first.merchant, first.buyer.address, 25_000_000n);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await refundOrder(first.store.slug, first.orderId);
    const [owed] = await db.cryptoOwedBack.findMany({ where: { checkoutId: first.checkoutId } });
    assert.ok(owed);
    const close = (refundDigest: string, store: Store = first.store, id = owed.id) =>
      codeOf(closeOwedBack(db, store, { id, refundDigest }));

    assert.equal(await close(early), "invalid_request");
    assert.equal(
      await close(await sendBack(first.merchant, first.buyer.address, 24_999_999n)),
      "invalid_request",
    );
    assert.equal(await close("not-a-digest"), "invalid_request");
    // a well-formed digest the node has never seen: not final yet, try again later
    assert.equal(await close("11111111111111111111111111111111"), "conflict");
    const second = await paidOrder();
    assert.equal(
      await close(await sendBack(first.merchant, first.buyer.address, 1n), second.store),
      "not_found",
    );
    assert.equal((await db.cryptoOwedBack.findUniqueOrThrow({ where: { id: owed.id } })).status, "open");

    // one transaction closes one record
    await refundOrder(second.store.slug, second.orderId);
    const [owed2] = await db.cryptoOwedBack.findMany({ where: { checkoutId: second.checkoutId } });
    // it pays both buyers back in full, so only its use for the first record stops it closing the second
    const good = await sendBackMany(first.merchant, [
      [first.buyer.address, 25_000_000n],
      [second.buyer.address, 25_000_000n],
    ]);
    assert.equal(await close(good), "resolved");
    assert.equal(await close(good, second.store, owed2!.id), "invalid_request");
    assert.equal((await db.cryptoOwedBack.findUniqueOrThrow({ where: { id: owed2!.id } })).status, "open");
  });
});
