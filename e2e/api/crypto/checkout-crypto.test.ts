import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { normalizeStructTag } from "@mysten/sui/utils";

import { reconcileCryptoPayments } from "@/lib/checkout/completion/reconcile-crypto";
import { settleCrypto } from "@/lib/checkout/completion/settle-crypto";
import { getDb, getDbHandle } from "@/lib/config/db";
import { chainForNetwork } from "@/lib/payments/crypto/chain";
import { settlementNetwork } from "@/lib/payments/crypto/coins";
import { createCryptoRail } from "@/lib/payments/crypto/crypto-rail";
import { createFixedRateOracle, SANDBOX_RATES } from "@/lib/payments/crypto/oracle";

import { rest } from "../../helpers/app-client";
import {
  bearerHeaders,
  completeWithDigest as complete,
  createCryptoCheckout,
  cryptoCompletionBody,
  cryptoTestSetup,
  lapseReservations,
  linkBuyerAgent,
  newWallet,
  prepareWithBearer as prepare,
  regasAndSubmit,
  sandboxUrl,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  signedProfile,
  submitWithFreshGas,
  USDC_UNIT,
} from "../../helpers/crypto-purchase";
import { balances, hideDigest, setFault, shiftClock, SUI, USDC, WUSDC } from "../../helpers/sui-sandbox";
import type { Checkout, ErrorEnvelope } from "../checkout/helpers";

// The crypto rail over REST, end to end on the Sui sandbox (a fake fullnode): a platform key creates the checkout,
// the buyer's agent prepares the payment with the buyer's bearer alone (binding the checkout to that buyer and agent),
// the buyer's wallet signs and submits the bytes, and the agent completes with the digest and both mandates. Every
// money assertion reads the sandbox's own ledger: the merchant receives the quoted legs exactly once, whatever
// arrives twice, late or out of order.

const suite = cryptoTestSetup();

type Completed = Checkout & { order?: { id: string; permalink_url: string } };

const paths = (body: unknown) =>
  ((body as ErrorEnvelope).messages ?? []).map((m) => [m.code, m.path] as [string?, string?]);

const received = async (address: string, coinType: string) =>
  (await balances(sandboxUrl(), address)).get(normalizeStructTag(coinType)) ?? 0n;

const ordersOf = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });
const owedBackOf = async (checkoutId: string) =>
  (await getDb()).cryptoOwedBack.findMany({ where: { checkoutId } });

/** A store, a funded buyer with a linked agent, a ready checkout created with the platform key. */
const setup = async (
  options: Parameters<typeof seedCryptoStore>[0] = {},
  funds: Parameters<typeof newWallet>[0] = { usdc: [100n * USDC_UNIT] },
) => {
  const shop = await seedCryptoStore(options);
  const agent = await linkBuyerAgent(suite.cimd, await newWallet(funds));
  const checkout = await createCryptoCheckout(shop.store, suite.apiKey, shop.variantId);
  return { ...shop, agent, checkout };
};

describe("REST crypto purchase", () => {
  test("payment-intent (auto) → the wallet signs → complete with the digest: one order, the merchant receives the quoted USDC once", async () => {
    const { store, payout, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    assert.equal(prepared.status, 200, prepared.text);
    assert.equal(prepared.body.quote.total, 2500);
    assert.deepEqual(
      prepared.body.quote.legs.map((l) => [l.symbol, l.amount, l.fiat_amount]),
      [["USDC", "25000000", 2500]],
    );
    assert.ok(Date.parse(prepared.body.expires_at) > Date.now());
    assert.match(prepared.body.continue_url, new RegExp(`/s/${store.slug}/pay/`));

    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    assert.equal(digest, prepared.body.transaction.digest, "the wallet signed our bytes as they are");
    const intent = await signAllowance(agent.wallet, agent.clientId, { per_order_max: 5000 });
    const done = await complete(store.slug, checkout, agent, digest, intent);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, "completed", done.text);
    assert.ok(done.body.order?.id);
    assert.equal(await received(payout, USDC), 25_000_000n);

    // a retry of the same completion (a new key, same digest) returns the order and moves nothing
    const again = await complete(store.slug, checkout, agent, digest, intent);
    assert.equal(again.body.status, "completed", again.text);
    assert.equal(again.body.order?.id, done.body.order!.id);
    assert.equal(await ordersOf(checkout.id), 1);
    assert.equal(await received(payout, USDC), 25_000_000n);
    assert.deepEqual(await owedBackOf(checkout.id), []);
    const order = await (await getDb()).order.findUniqueOrThrow({ where: { checkoutId: checkout.id } });
    assert.equal(order.paymentRef, digest);
    assert.equal(order.handlerId, "svc.crypto");
  });

  test("payment-intent prices with the store's shipping rates as they are now, read with the checkout it binds, not as the checkout last showed them nor as the row cache holds them", async () => {
    const { store, agent, checkout } = await setup();
    assert.equal(checkout.totals.find((t) => t.type === "total")?.amount, 2500);
    // the create priced from the row cache, which now holds the rate at 0; the change comes from another
    // connection (another instance), so nothing empties that cache in this process
    const other = await (await getDbHandle()).handle.factory.connect();
    try {
      await other.executeScript(`UPDATE shipping_rates SET price_minor = 700 WHERE store_id = '${store.id}'`);
    } finally {
      await other.dispose();
    }
    const prepared = await prepare(store.slug, checkout.id, agent);
    assert.equal(prepared.status, 200, prepared.text);
    assert.equal(prepared.body.quote.total, 3200, "2500 and the standard rate's 700 now");
    const bound = await (await getDb()).checkoutSession.findUniqueOrThrow({ where: { id: checkout.id } });
    assert.ok(bound.boundPrincipalId, "the prepare bound the checkout it priced");
  });

  test("buyer binding (B17): the first payment-intent binds the checkout to that buyer and agent; another agent of the same buyer gets not_found, the creating platform still reads it", async () => {
    const { store, agent, checkout } = await setup();
    assert.equal((await prepare(store.slug, checkout.id, agent)).status, 200);
    const sibling = await linkBuyerAgent(suite.cimd, agent.wallet, undefined, agent.buyerId);
    const refused = await prepare(store.slug, checkout.id, sibling);
    assert.deepEqual(paths(refused.body), [["not_found", "$.id"]], refused.text);
    // nor can it complete it
    assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 1);
    const read = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${checkout.id}`, {
      headers: { "x-api-key": suite.apiKey },
    });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.id, checkout.id);
  });

  test("a bearer and a platform key together: the key wins, so the buyer-bound call is refused with identity_required saying to send the bearer alone; nothing is prepared", async () => {
    const { store, agent, checkout } = await setup();
    const both = await rest("POST", `/s/${store.slug}/checkout-sessions/${checkout.id}/payment-intent`, {
      headers: await bearerHeaders(agent.bearer, { "x-api-key": suite.apiKey }),
      body: { buyer_address: agent.wallet.address },
    });
    assert.equal(both.status, 401, both.text);
    assert.deepEqual(paths(both.body)[0]?.[0], "identity_required");
    assert.match((both.body as unknown as ErrorEnvelope).messages[0]!.content, /ALONE/);
    const keyOnly = await rest("POST", `/s/${store.slug}/checkout-sessions/${checkout.id}/payment-intent`, {
      headers: { "x-api-key": suite.apiKey, "idempotency-key": randomUUID() },
      body: { buyer_address: agent.wallet.address },
    });
    assert.equal(keyOnly.status, 401, keyOnly.text);
    assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 0);
  });

  test("buyer_address must be the wallet the buyer signed in with; malformed addresses and unknown coins are refused at their path; nothing is prepared", async () => {
    const { store, agent, checkout } = await setup();
    const other = await newWallet();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ buyer_address: other.address }, "invalid_request", "$.buyer_address"],
      [{ buyer_address: "0xnothex" }, "invalid_request", "$.buyer_address"],
      [{ input_coin_type: "DOGE" }, "unsupported_coin", "$.input_coin_type"],
      // Wormhole's wrapped USDC is another asset, never USDC
      [{ input_coin_type: WUSDC }, "unsupported_coin", "$.input_coin_type"],
    ];
    for (const [body, code, path] of cases) {
      const refused = await prepare(store.slug, checkout.id, agent, body);
      assert.deepEqual(paths(refused.body)[0], [code, path], `${JSON.stringify(body)}: ${refused.text}`);
      assert.ok(refused.status >= 200 && refused.status < 500, refused.text);
    }
    assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 0);
  });

  test("a named coin pays alone (symbol any case or full type); insufficient_funds counts only what the transaction can spend; insufficient_liquidity past the configured size", async () => {
    const { store, agent, checkout } = await setup(
      {},
      { usdc: [100n * USDC_UNIT], sui: [30n * 1_000_000_000n] },
    );
    const sui = await prepare(store.slug, checkout.id, agent, { input_coin_type: "sui" });
    assert.equal(sui.status, 200, sui.text);
    assert.deepEqual(
      sui.body.quote.legs.map((l) => l.symbol),
      ["SUI"],
    );
    // 25.00 USD at 2.50 USD/SUI = 10 SUI, plus the 50 bp buffer, rounded up against the buyer
    assert.equal(sui.body.quote.legs[0]!.amount, "10050000000");
    const usdc = await prepare(store.slug, checkout.id, agent, { input_coin_type: normalizeStructTag(USDC) });
    assert.deepEqual(
      usdc.body.quote.legs.map((l) => l.symbol),
      ["USDC"],
    );
    // USDT is accepted but the wallet holds none
    const usdt = await prepare(store.slug, checkout.id, agent, { input_coin_type: "USDT" });
    assert.deepEqual(paths(usdt.body)[0]?.[0], "insufficient_funds", usdt.text);

    const big = await setup({ priceMinor: 3_000_000 }, { sui: [20_000n * 1_000_000_000n] });
    const tooBig = await prepare(big.store.slug, big.checkout.id, big.agent, { input_coin_type: "SUI" });
    assert.deepEqual(paths(tooBig.body)[0]?.[0], "insufficient_liquidity", tooBig.text);
  });

  test("a later payment-intent replaces the prepared payment; if the buyer signs the replaced one, it still pays (it covers the total), and signing the newer one too is owed back, never a second order", async () => {
    const { store, payout, agent, checkout } = await setup(
      {},
      { usdc: [40n * USDC_UNIT], sui: [30n * 1_000_000_000n] },
    );
    const first = await prepare(store.slug, checkout.id, agent);
    const second = await prepare(store.slug, checkout.id, agent, { input_coin_type: "SUI" });
    assert.equal(second.status, 200, second.text);
    assert.notEqual(first.body.transaction.digest, second.body.transaction.digest);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const d1 = await signAndSubmit(agent.wallet, first.body.transaction.bytes);
    const done = await complete(store.slug, checkout, agent, d1, intent);
    assert.equal(done.body.status, "completed", done.text);
    const d2 = await submitWithFreshGas(agent.wallet, second.body.transaction.bytes);
    const late = await complete(store.slug, checkout, agent, d2, intent);
    assert.equal(late.body.status, "completed", late.text);
    assert.equal(late.body.order?.id, done.body.order?.id);
    assert.equal(await ordersOf(checkout.id), 1);
    assert.equal(await received(payout, USDC), 25_000_000n);
    // the second transaction landed: what the merchant received from it is recorded as owed back to the buyer
    const owed = await owedBackOf(checkout.id);
    assert.equal(owed.length, 1, JSON.stringify(owed));
    assert.equal(owed[0]!.paymentDigest, d2);
    assert.equal(owed[0]!.buyerAddress, agent.wallet.address);
    assert.deepEqual(
      (owed[0]!.amounts as { symbol: string; amount: string }[]).map((a) => [a.symbol, a.amount]),
      [["SUI", second.body.quote.legs[0]!.amount]],
    );
  });

  test("every payment-intent is its own prepared payment and the current one: auto → SUI → auto again gives new bytes, and the newest is what completion expects", async () => {
    const { store, agent, checkout } = await setup(
      {},
      { usdc: [100n * USDC_UNIT], sui: [30n * 1_000_000_000n] },
    );
    const a = await prepare(store.slug, checkout.id, agent);
    const b = await prepare(store.slug, checkout.id, agent, { input_coin_type: "SUI" });
    const c = await prepare(store.slug, checkout.id, agent);
    const digests = [a, b, c].map((p) => p.body.transaction.digest);
    assert.equal(new Set(digests).size, 3, digests.join());
    const current = await (
      await getDb()
    ).paymentAttempt.findFirst({
      where: { checkoutId: checkout.id, isCurrent: true },
    });
    assert.equal(current?.providerRef, c.body.transaction.digest);
  });

  test("landed first: a payment-intent after the prepared transaction already landed finishes the checkout with it instead of preparing another", async () => {
    const { store, payout, agent, checkout } = await setup();
    const first = await prepare(store.slug, checkout.id, agent);
    await signAndSubmit(agent.wallet, first.body.transaction.bytes);
    const again = await prepare(store.slug, checkout.id, agent, { input_coin_type: "SUI" });
    assert.deepEqual(paths(again.body)[0], ["checkout_not_modifiable", "$.id"], again.text);
    assert.match((again.body as unknown as ErrorEnvelope).messages[0]!.content, /do not pay again/);
    assert.equal(await ordersOf(checkout.id), 1);
    assert.equal(await received(payout, USDC), 25_000_000n);
    assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 1);
  });

  test("a re-gassed transaction (another digest) pays on its legs", async () => {
    const { store, payout, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    const digest = await regasAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    assert.notEqual(digest, prepared.body.transaction.digest);
    const done = await complete(
      store.slug,
      checkout,
      agent,
      digest,
      await signAllowance(agent.wallet, agent.clientId),
    );
    assert.equal(done.body.status, "completed", done.text);
    assert.equal(await received(payout, USDC), 25_000_000n);
  });

  test("a digest the node cannot see yet: complete_in_progress with payment_pending carrying the digest and no invitation to pay; the retry with the same digest completes", async () => {
    const { store, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    await hideDigest(sandboxUrl(), digest, 1);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const pending = await complete(store.slug, checkout, agent, digest, intent);
    assert.equal(pending.status, 200, pending.text);
    assert.notEqual(pending.body.status, "completed");
    const message = pending.body.messages.find((m) => m.code === "payment_pending");
    assert.ok(message, pending.text);
    assert.ok(message.content.includes(digest));
    assert.match(message.content, /Do not pay again/);
    assert.ok(!pending.body.messages.some((m) => m.code === "payment_failed"), pending.text);
    assert.equal(await ordersOf(checkout.id), 0);
    const retry = await complete(store.slug, checkout, agent, digest, intent);
    assert.equal(retry.body.status, "completed", retry.text);
    assert.equal(await ordersOf(checkout.id), 1);
  });

  test("a node that is down at completion: pending, no order; the sweep finishes it once the node answers", async () => {
    const { store, payout, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    await setFault(sandboxUrl(), "down", 2);
    try {
      const pending = await complete(store.slug, checkout, agent, digest, intent);
      assert.equal(pending.status, 200, pending.text);
      assert.ok(
        pending.body.messages.some((m) => m.code === "payment_pending"),
        pending.text,
      );
    } finally {
      await setFault(sandboxUrl(), null);
    }
    assert.equal(await ordersOf(checkout.id), 0);
    const swept = await reconcileCryptoPayments({ storeId: store.id, graceMs: 0 });
    assert.ok(
      swept.some((r) => r.result === "order_placed"),
      JSON.stringify(swept),
    );
    assert.equal(await ordersOf(checkout.id), 1);
    assert.equal(await received(payout, USDC), 25_000_000n);
    const read = await complete(store.slug, checkout, agent, digest, intent);
    assert.equal(read.body.status, "completed", read.text);
  });

  test("a payment that lands after the quote window completes when it still covers the total at today's rates; when the coin fell meanwhile it is owed back in full and no order is placed", async () => {
    const { store, payout, agent, checkout, variantId } = await setup({}, { sui: [40n * 1_000_000_000n] });
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const late = async (id: string) => {
      const prepared = await prepare(store.slug, id, agent, { input_coin_type: "SUI" });
      assert.equal(prepared.status, 200, prepared.text);
      // the chain's clock runs 11 minutes ahead: the transaction's checkpoint is after expires_at
      await shiftClock(sandboxUrl(), 11 * 60_000);
      try {
        return {
          prepared: prepared.body,
          digest: await signAndSubmit(agent.wallet, prepared.body.transaction.bytes),
        };
      } finally {
        await shiftClock(sandboxUrl(), 0);
      }
    };
    const first = await late(checkout.id);
    const done = await complete(store.slug, checkout, agent, first.digest, intent);
    assert.equal(done.body.status, "completed", done.text);
    assert.equal(await received(payout, SUI), BigInt(first.prepared.quote.legs[0]!.amount));

    // SUI fell from 2.50 to 2.00 USD since the quote: 10.05 SUI no longer covers 25.00 USD
    const second = await createCryptoCheckout(store, suite.apiKey, variantId);
    const paid = await late(second.id);
    const fallen = createCryptoRail({
      chain: (s) => chainForNetwork(settlementNetwork(s)),
      oracle: () => createFixedRateOracle({ ...SANDBOX_RATES, usd: { ...SANDBOX_RATES.usd, SUI: "2.00" } }),
      now: Date.now,
    });
    const db = await getDb();
    const settled = await settleCrypto(db, {
      store,
      checkoutId: second.id,
      digest: paid.digest,
      rail: fallen,
      now: new Date(),
      path: "$.payment.instruments[0].credential.token",
    });
    assert.equal(settled.kind, "failed", JSON.stringify(settled));
    assert.equal(await ordersOf(second.id), 0);
    const owed = await owedBackOf(second.id);
    assert.deepEqual(
      owed.map((o) => [o.paymentDigest, (o.amounts as { amount: string }[])[0]!.amount]),
      [[paid.digest, paid.prepared.quote.legs[0]!.amount]],
    );
  });

  test("a fullnode that answers garbage or hangs at payment-intent: payment_provider_error with the reason, nothing prepared; the next call works", async () => {
    const { store, agent, checkout } = await setup();
    for (const mode of ["garbage", "hang"] as const) {
      await setFault(sandboxUrl(), mode, 1);
      try {
        const refused = await prepare(store.slug, checkout.id, agent);
        assert.equal(paths(refused.body)[0]?.[0], "payment_provider_error", `${mode}: ${refused.text}`);
        assert.ok(refused.status < 500 || refused.status === 502 || refused.status === 503, refused.text);
      } finally {
        await setFault(sandboxUrl(), null);
      }
      assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 0);
    }
    assert.equal((await prepare(store.slug, checkout.id, agent)).status, 200);
  });

  test("a digest replayed on a second checkout pays nothing there; another buyer's transaction is refused; no order for either", async () => {
    const { store, agent, checkout, variantId } = await setup(
      {},
      { usdc: [40n * USDC_UNIT, 40n * USDC_UNIT] },
    );
    // both prepared before either is paid, so the replayed transaction is not older than the second prepare
    const second = await createCryptoCheckout(store, suite.apiKey, variantId);
    assert.equal((await prepare(store.slug, second.id, agent)).status, 200);
    const prepared = await prepare(store.slug, checkout.id, agent);
    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const paid = await complete(store.slug, checkout, agent, digest, intent);
    assert.equal(paid.body.status, "completed", paid.text);
    const replayed = await complete(store.slug, second, agent, digest, intent);
    assert.notEqual(replayed.body.status, "completed", replayed.text);
    assert.ok(
      replayed.body.messages.some((m) => m.code === "payment_failed" && /another checkout/.test(m.content)),
      replayed.text,
    );
    assert.equal(await ordersOf(second.id), 0);

    // another buyer pays the same amount to the merchant from their own wallet: not this buyer's payment
    const stranger = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const third = await createCryptoCheckout(store, suite.apiKey, variantId);
    const theirs = await prepare(store.slug, third.id, stranger);
    const theirDigest = await signAndSubmit(stranger.wallet, theirs.body.transaction.bytes);
    const wrong = await complete(store.slug, second, agent, theirDigest, intent);
    assert.ok(
      wrong.body.messages.some(
        (m) => m.code === "payment_failed" && /not by the checkout's buyer/.test(m.content),
      ),
      wrong.text,
    );
    assert.equal(await ordersOf(second.id), 0);
  });

  test("the intent mandate the agent sends: tampered, expired, for another agent or over the per-order maximum is refused before anything is judged; no order", async () => {
    const { store, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    // the prepare's reservation lapsed: each allowance the agent sends is judged as sent (DECISIONS B20)
    await lapseReservations(checkout.id);
    const cases: [string | null, string][] = [
      [
        await signAllowance(agent.wallet, agent.clientId, {}, { tamper: { per_order_max: 999_999 } }),
        "mandate_invalid_signature",
      ],
      [
        await signAllowance(agent.wallet, agent.clientId, {
          expires_at: new Date(Date.now() - 1000).toISOString(),
        }),
        "mandate_expired",
      ],
      [await signAllowance(agent.wallet, "https://another-agent.example/client"), "mandate_scope_mismatch"],
      [
        await signAllowance(agent.wallet, agent.clientId, { merchants: ["some-other-store"] }),
        "mandate_scope_mismatch",
      ],
      [await signAllowance(agent.wallet, agent.clientId, { per_order_max: 2499 }), "spend_cap_exceeded"],
      ["bm90IGpzb24=", "mandate_invalid_signature"],
    ];
    for (const [intent, code] of cases) {
      const refused = await complete(store.slug, checkout, agent, digest, intent);
      assert.deepEqual(paths(refused.body)[0], [code, "$.ap2.intent_mandate"], refused.text);
    }
    assert.equal(await ordersOf(checkout.id), 0);
    const done = await complete(
      store.slug,
      checkout,
      agent,
      digest,
      await signAllowance(agent.wallet, agent.clientId),
    );
    assert.equal(done.body.status, "completed", done.text);
  });

  test("race: the same digest completed 6 times at once makes one order; the merchant receives the legs once", async () => {
    const { store, payout, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => complete(store.slug, checkout, agent, digest, intent)),
    );
    for (const a of answers) assert.ok(a.status < 500, a.text);
    const orderIds = new Set(answers.map((a) => a.body.order?.id).filter(Boolean));
    assert.ok(orderIds.size <= 1, [...orderIds].join());
    assert.equal(await ordersOf(checkout.id), 1);
    assert.equal(await received(payout, USDC), 25_000_000n);
    assert.deepEqual(await owedBackOf(checkout.id), []);
  });

  test("race: the replaced and the current prepare both signed and completed at once: one order, the other payment owed back in full; net kept = order total", async () => {
    const { store, payout, agent, checkout } = await setup(
      {},
      { usdc: [40n * USDC_UNIT], sui: [30n * 1_000_000_000n] },
    );
    const first = await prepare(store.slug, checkout.id, agent);
    const second = await prepare(store.slug, checkout.id, agent, { input_coin_type: "SUI" });
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const d1 = await signAndSubmit(agent.wallet, first.body.transaction.bytes);
    const d2 = await submitWithFreshGas(agent.wallet, second.body.transaction.bytes);
    const [a, b] = await Promise.all([
      complete(store.slug, checkout, agent, d1, intent),
      complete(store.slug, checkout, agent, d2, intent),
    ]);
    assert.ok(a.status < 500 && b.status < 500, `${a.text}\n${b.text}`);
    assert.equal(await ordersOf(checkout.id), 1);
    const order = await (await getDb()).order.findUniqueOrThrow({ where: { checkoutId: checkout.id } });
    const owed = await owedBackOf(checkout.id);
    assert.equal(owed.length, 1, JSON.stringify(owed));
    // the payment that holds the order is not owed back; the other one is, in full
    assert.notEqual(owed[0]!.paymentDigest, order.paymentRef);
    // the order names the prepared payment it settled; the re-gassed d2 settles the second prepare under its own
    // digest, so read the digest that landed from the prepared payment (either completion may win the order)
    const paidWith = await (
      await getDb()
    ).cryptoPayment.findUniqueOrThrow({
      where: { preparedDigest: order.paymentRef! },
    });
    assert.deepEqual(new Set([paidWith.settledDigest, owed[0]!.paymentDigest]), new Set([d1, d2]));
    const usdcIn = await received(payout, USDC);
    const suiIn = await received(payout, SUI);
    if (order.paymentRef === d1) {
      assert.equal(usdcIn, 25_000_000n);
      assert.equal((owed[0]!.amounts as { amount: string }[])[0]!.amount, suiIn.toString());
    } else {
      assert.equal(suiIn.toString(), second.body.quote.legs[0]!.amount);
      assert.equal((owed[0]!.amounts as { amount: string }[])[0]!.amount, usdcIn.toString());
    }
  });

  test("without a digest, complete answers requires_escalation with the wallet page as continue_url and places nothing", async () => {
    const { store, agent, checkout } = await setup();
    const prepared = await prepare(store.slug, checkout.id, agent);
    const profile = await signedProfile();
    const escalated = await rest<Completed & { continue_url?: string }>(
      "POST",
      `/s/${store.slug}/checkout-sessions/${checkout.id}/complete`,
      {
        headers: await bearerHeaders(agent.bearer, { "ucp-agent": `profile="${profile.url}"` }),
        body: {
          ...(await cryptoCompletionBody(checkout, store.slug, "x", null)),
          payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
        },
      },
    );
    assert.equal(escalated.body.status, "requires_escalation", escalated.text);
    assert.equal(escalated.body.continue_url, prepared.body.continue_url);
    assert.equal(await ordersOf(checkout.id), 0);
  });
});
