import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { preparedToWire } from "@/lib/checkout/crypto/prepare-checkout-payment";
import { getDb } from "@/lib/config/db";
import { transaction } from "@/lib/config/sql";
import { buyerWalletOf } from "@/lib/mandates/buyer-spend";
import { allowanceForPrepare, PREPARE_RESERVATION_GRACE_MS } from "@/lib/mandates/spend-for-checkout";
import { heldReservationOf, reserveSpend } from "@/lib/mandates/spend-ledger";
import { currentAttempt } from "@/lib/payments/attempts";
import { findPrepared } from "@/lib/payments/crypto/crypto-rail";

import {
  allow,
  completeWithDigest,
  createCryptoCheckout,
  cryptoTestSetup,
  linkBuyerAgent,
  newWallet,
  prepareWithBearer,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  USDC_UNIT,
} from "../../helpers/crypto-purchase";
import { statementsOf } from "../../helpers/sql-statements";

// What a crypto purchase costs in SQL statements: the budgets of its two crypto calls (docs/performance.md, "Statement
// budgets"; a change that adds a round trip fails here, with the statements listed), and the reads moved off
// Prisma's client onto the driver adapter (lib/config/sql.ts), each equal to Prisma's record column for column.

// the longest staleness bound, so the cached rows of the warm-up are still there for the calls measured after it
process.env.ROW_CACHE_TTL_MS = "5000";

const suite = cryptoTestSetup();

/**
 * payment-intent: the idempotency claim and record, the checkout's read and the buyer's binding, the buyer's wallet,
 * pricing's variants read, the current attempt, the allowance, its reservation (its lock with the allowance, one
 * read of the ledger, the insert, COMMIT), the continue token, the prepares counted, the prepared payment's insert,
 * the new attempt, the reservation's expiry. complete: the idempotency claim and record, the store read fresh, the
 * checkout's read with its rates, the variants, the prepared payment, the buyer's wallet, the held reservation, the
 * hold, the digest's claims (group, claim, settled), the finisher's reads and writes, the order's transaction.
 */
const BUDGET = { prepare: 19, complete: 21 };

const withinBudget = (label: string, sql: string[], budget: number) => {
  assert.ok(
    sql.length <= budget,
    `${label}: ${sql.length} SQL statements, budget ${budget}:\n${sql.map((s) => `  ${s.slice(0, 160)}`).join("\n")}`,
  );
};

describe("crypto purchase cost", () => {
  test("payment-intent and the completion with the digest stay within their statement budgets; the moved reads equal Prisma's records", async () => {
    const seeded = await seedCryptoStore();
    const wallet = await newWallet({ usdc: [100n * USDC_UNIT, 100n * USDC_UNIT] });
    const agent = await linkBuyerAgent(suite.cimd, wallet);
    const intent = await signAllowance(wallet, agent.clientId);
    const purchase = async (measure: boolean) => {
      const checkout = await createCryptoCheckout(seeded.store, suite.apiKey, seeded.variantId);
      const prepared = await statementsOf(() =>
        prepareWithBearer(seeded.store.slug, checkout.id, agent, { ap2: { intent_mandate: intent } }),
      );
      assert.equal(prepared.result.status, 200, prepared.result.text);
      // the answer, made from the row its insert returned, is the one Prisma's record of that row makes, byte for byte
      const row = await (
        await getDb()
      ).cryptoPayment.findUniqueOrThrow({
        where: { preparedDigest: prepared.result.body.transaction.digest },
      });
      assert.equal(
        JSON.stringify(prepared.result.body),
        JSON.stringify(preparedToWire({ row, continueUrl: prepared.result.body.continue_url })),
      );
      const digest = await signAndSubmit(wallet, prepared.result.body.transaction.bytes);
      const completed = await statementsOf(() =>
        completeWithDigest(seeded.store.slug, checkout, agent, digest, intent),
      );
      assert.equal(completed.result.body.status, "completed", completed.result.text);
      if (measure) {
        withinBudget("payment-intent", prepared.sql, BUDGET.prepare);
        withinBudget("complete (crypto)", completed.sql, BUDGET.complete);
        // the completed checkout rendered from what the order's transaction wrote is the one a retry reads back
        // (the merchant's signature over it aside: ECDSA signs with a fresh nonce)
        const again = await completeWithDigest(seeded.store.slug, checkout, agent, digest, intent);
        assert.equal(again.body.status, "completed", again.text);
        const { ap2: _first, ...first } = completed.result.body as Record<string, unknown>;
        const { ap2: _second, ...second } = again.body as Record<string, unknown>;
        assert.deepEqual(first, second);
      }
      return { checkout, digest };
    };
    await purchase(false);
    const { checkout, digest } = await purchase(true);

    // the reads now on the driver adapter answer what Prisma's client answers
    const db = await getDb();
    assert.deepEqual(
      await findPrepared(digest),
      await db.cryptoPayment.findUnique({ where: { preparedDigest: digest } }),
    );
    assert.deepEqual(
      await currentAttempt(db, checkout.id),
      await db.paymentAttempt.findFirst({ where: { checkoutId: checkout.id, isCurrent: true } }),
    );
    assert.deepEqual(
      await buyerWalletOf(agent.buyerId),
      await db.buyer.findUnique({ where: { id: agent.buyerId }, select: { suiAddress: true } }),
    );
    assert.deepEqual(
      await allowanceForPrepare(db, {
        buyerId: agent.buyerId,
        clientId: agent.clientId,
        merchant: seeded.store.slug,
        now: new Date(),
      }),
      await db.intentMandate.findFirst({
        where: { buyerId: agent.buyerId, clientId: agent.clientId },
        orderBy: { createdAt: "desc" },
      }),
    );
    // a held reservation as reserveSpend writes it and heldReservationOf reads it, against Prisma's record
    const next = await createCryptoCheckout(seeded.store, suite.apiKey, seeded.variantId);
    const allowance = await db.intentMandate.findFirstOrThrow({ where: { buyerId: agent.buyerId } });
    const now = new Date();
    const written = await transaction((tx) =>
      reserveSpend(tx, {
        allowanceId: allowance.id,
        amount: 1234,
        origin: { amount: 1234, currency: "usd" },
        scope: { checkoutId: next.id },
        storeId: seeded.store.id,
        expiresAt: new Date(now.getTime() + 60_000),
        now,
      }),
    );
    const stored = await db.spendEntry.findUniqueOrThrow({ where: { id: written.id } });
    assert.deepEqual(written, stored);
    assert.deepEqual(await heldReservationOf({ checkoutId: next.id }), stored);
    assert.equal(stored.originCurrency, "USD");
  });
});

describe("race", () => {
  test("6 payment-intents of one checkout at once, room for one total: one held reservation covering it until past the current quote, never over the limit; the current payment signed completes with one debit", async () => {
    const seeded = await seedCryptoStore();
    const wallet = await newWallet({ usdc: [100n * USDC_UNIT] });
    const agent = await linkBuyerAgent(suite.cimd, wallet, undefined, undefined, { allowance: false });
    const { id: allowanceId } = await allow(agent, { limits: { day: 3000 } });
    const checkout = await createCryptoCheckout(seeded.store, suite.apiKey, seeded.variantId);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => prepareWithBearer(seeded.store.slug, checkout.id, agent)),
    );
    // each refused one says why (a parallel reservation of this checkout), none is over the limit
    for (const answer of answers) {
      assert.ok(
        answer.status === 200 || /"conflict"/.test(answer.text),
        `${answer.status} ${answer.text.slice(0, 300)}`,
      );
    }
    assert.ok(answers.some((a) => a.status === 200));
    const db = await getDb();
    const entries = await db.spendEntry.findMany({ where: { allowanceId } });
    const held = entries.filter((e) => e.state === "held");
    assert.equal(held.length, 1, JSON.stringify(entries));
    assert.equal(held[0]!.amount, 2500);
    // the current prepared payment, whichever answer it was, is covered until its quote ends (plus the grace)
    const current = await currentAttempt(db, checkout.id);
    const row = await findPrepared(current!.providerRef!);
    assert.ok(
      held[0]!.expiresAt!.getTime() >= row!.expiresAt.getTime() + PREPARE_RESERVATION_GRACE_MS,
      `held until the current quote ends plus the grace (${held[0]!.expiresAt!.toISOString()}, quote ${row!.expiresAt.toISOString()})`,
    );

    const digest = await signAndSubmit(wallet, row!.transactionBytes);
    const done = await completeWithDigest(seeded.store.slug, checkout, agent, digest, null);
    assert.equal(done.body.status, "completed", done.text);
    const after = await db.spendEntry.findMany({ where: { allowanceId } });
    assert.deepEqual(
      after.filter((e) => e.kind === "debit").map((e) => e.amount),
      [2500],
    );
    assert.equal(after.filter((e) => e.state === "held").length, 0);
    assert.equal(await db.order.count({ where: { checkoutId: checkout.id } }), 1);
  });
});
