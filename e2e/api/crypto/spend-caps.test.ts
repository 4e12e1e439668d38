import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { startAgentProfileServer, type Checkout as KitCheckout } from "@agent-commerce/agent-kit";

import { termsFingerprint } from "@/lib/bridge/checkout-terms";
import { revokeLinkedAgent } from "@/lib/buyers/consents";
import {
  CRYPTO_RECONCILE_GRACE_MS,
  reconcileCryptoPayments,
} from "@/lib/checkout/completion/reconcile-crypto";
import { getDb } from "@/lib/config/db";
import { toAllowanceCurrency } from "@/lib/mandates/allowance-amount";
import { saveIntentMandate, setAllowanceStatus } from "@/lib/mandates/intent-mandates";
import { releaseExpired } from "@/lib/mandates/spend-ledger";
import { refundOrder } from "@/lib/orders/refund-order";

import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import {
  allow,
  completeWithDigest as complete,
  createCryptoCheckout,
  cryptoTestSetup,
  lapseReservations,
  linkBuyerAgent,
  newWallet,
  prepareWithBearer as prepare,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  signedProfile,
  USDC_UNIT,
} from "../../helpers/crypto-purchase";
import { connectMcpClient } from "../../helpers/mcp-client";
import { connectBridge, resultJson, serviceFetch, TEST_BASE_URL, toolError } from "../bridge/helpers";
import type { Checkout, ErrorEnvelope } from "../checkout/helpers";

// Buyer spend caps (DECISIONS B6) on the crypto rail over REST and MCP: payment-intent reserves the total on the
// buyer's allowance for the calling agent before the wallet can pay, the order's transaction debits it, a refund
// paid back credits it, the sweep releases what expired; every bad allowance gets its own code and nothing is
// reserved, prepared or charged for it. Ends with the race: one buyer's agent, 20 concurrent prepares, then
// completions racing the refused prepares again, over 5 stores totalling 3× the daily limit.

const suite = cryptoTestSetup();

type Completed = Checkout & { order?: { id: string } };
type Message = { code?: string; path?: string; content?: string; details?: Record<string, unknown> };

const messages = (body: unknown): Message[] => ((body as ErrorEnvelope).messages ?? []) as Message[];
const codes = (body: unknown) => messages(body).map((m) => m.code);

/** The buyer signs an allowance for the agent and it is kept, as the spend-cap page does. */
const entries = async (allowanceId: string) =>
  (await getDb()).spendEntry.findMany({ where: { allowanceId }, orderBy: { createdAt: "asc" } });

const preparedCount = async (checkoutId: string) =>
  (await getDb()).cryptoPayment.count({ where: { checkoutId } });

/** One store, one funded buyer with a linked agent, `n` ready checkouts of 25.00 USD. */
const setup = async (n: number) => {
  const shop = await seedCryptoStore();
  const agent = await linkBuyerAgent(
    suite.cimd,
    await newWallet({ usdc: [500n * USDC_UNIT] }),
    undefined,
    undefined,
    { allowance: false },
  );
  const checkouts: Checkout[] = [];
  for (let i = 0; i < n; i++)
    checkouts.push(await createCryptoCheckout(shop.store, suite.apiKey, shop.variantId));
  return { ...shop, agent, checkouts };
};

describe("REST spend caps on the crypto rail", () => {
  test("payment-intent reserves on the newest active allowance; over the day limit spend_cap_exceeded carries what remains and nothing is prepared; the completion debits in the order's transaction, a paid-back refund credits", async () => {
    const { store, agent, checkouts } = await setup(3);
    const [c1, c2, c3] = checkouts as [Checkout, Checkout, Checkout];
    const { id } = await allow(agent, { limits: { day: 6000 } });

    assert.equal((await prepare(store.slug, c1.id, agent)).status, 200);
    const p2 = await prepare(store.slug, c2.id, agent);
    assert.equal(p2.status, 200, p2.text);
    const refused = await prepare(store.slug, c3.id, agent);
    assert.deepEqual(codes(refused.body), ["spend_cap_exceeded"], refused.text);
    const remaining = messages(refused.body)[0]!.details?.remaining as Record<string, unknown>;
    assert.equal(remaining.day, 1000, refused.text);
    assert.equal(remaining.currency, "USD");
    assert.equal(await preparedCount(c3.id), 0, "nothing was prepared: the wallet has nothing to pay");

    // the completion needs no intent mandate: the prepare's reservation covers it
    const p1 = await prepare(store.slug, c1.id, agent);
    const digest = await signAndSubmit(agent.wallet, p1.body.transaction.bytes);
    const done = await complete(store.slug, c1, agent, digest, null);
    assert.equal(done.body.status, "completed", done.text);
    const ledger = await entries(id);
    const debit = ledger.find((e) => e.kind === "debit")!;
    assert.equal(debit.orderId, done.body.order!.id);
    assert.equal(debit.amount, 2500);
    assert.equal(
      ledger.filter((e) => e.kind === "reservation" && e.state === "held").length,
      1,
      "c2 still held",
    );
    assert.equal(ledger.find((e) => e.checkoutId === c1.id && e.kind === "reservation")?.state, "consumed");
    // a retry of the completion debits nothing more
    await complete(store.slug, c1, agent, digest, null);
    assert.equal((await entries(id)).filter((e) => e.kind === "debit").length, 1);

    // the merchant refunds 10.00: recorded as owed back to the buyer, and given back to the allowance
    await refundOrder(store.slug, done.body.order!.id, { amount: 1000 });
    const credit = (await entries(id)).find((e) => e.kind === "credit");
    assert.equal(credit?.amount, 1000);
    assert.equal(credit?.windowAt.getTime(), debit.windowAt.getTime(), "counts in the debit's windows");
    // 6000 − (2500 − 1000) spent − 2500 held = 2000 < 2500: still refused; the full refund frees the rest
    assert.deepEqual(codes((await prepare(store.slug, c3.id, agent)).body), ["spend_cap_exceeded"]);
    await refundOrder(store.slug, done.body.order!.id);
    assert.equal((await prepare(store.slug, c3.id, agent)).status, 200);
    const credits = (await entries(id)).filter((e) => e.kind === "credit");
    assert.equal(
      credits.reduce((s, e) => s + e.amount, 0),
      2500,
    );
  });

  test("a payment made under a valid reservation completes although the buyer paused the allowance since; canceling the checkout releases its reservation, the sweep an expired one", async () => {
    const { store, agent, checkouts, variantId } = await setup(2);
    const [c1, c2] = checkouts as [Checkout, Checkout];
    const { id } = await allow(agent, { limits: { day: 5000 } });
    const p1 = await prepare(store.slug, c1.id, agent);
    assert.equal(p1.status, 200, p1.text);
    await setAllowanceStatus({ buyerId: agent.buyerId, id, action: "pause", now: new Date() });
    // paused: no new reservation
    assert.deepEqual(codes((await prepare(store.slug, c2.id, agent, { payment_mandate_id: id })).body), [
      "allowance_paused",
    ]);
    const digest = await signAndSubmit(agent.wallet, p1.body.transaction.bytes);
    const done = await complete(store.slug, c1, agent, digest, null);
    assert.equal(done.body.status, "completed", done.text);

    await setAllowanceStatus({ buyerId: agent.buyerId, id, action: "resume", now: new Date() });
    assert.equal((await prepare(store.slug, c2.id, agent)).status, 200);
    const held = await (await getDb()).spendEntry.findFirstOrThrow({ where: { heldCheckoutId: c2.id } });
    // canceling the checkout gives its reservation back at once
    const canceled = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions/${c2.id}/cancel`, {
      headers: {
        "x-api-key": suite.apiKey,
        "ucp-agent": `profile="${(await signedProfile()).url}"`,
        "idempotency-key": randomUUID(),
      },
      body: {},
    });
    assert.equal(canceled.body.status, "canceled", canceled.text);
    assert.equal(
      (await (await getDb()).spendEntry.findUniqueOrThrow({ where: { id: held.id } })).state,
      "released",
    );
    // the sweep releases a reservation once it expired
    const c3 = await createCryptoCheckout(store, suite.apiKey, variantId);
    assert.equal((await prepare(store.slug, c3.id, agent)).status, 200);
    const expiring = await (await getDb()).spendEntry.findFirstOrThrow({ where: { heldCheckoutId: c3.id } });
    // (the sweep is global: other tests' reservations may be released by these calls, never this one too early)
    await releaseExpired(await getDb(), new Date(expiring.expiresAt!.getTime() - 1000));
    const early = await (await getDb()).spendEntry.findUniqueOrThrow({ where: { id: expiring.id } });
    assert.equal(early.state, "held");
    assert.ok((await releaseExpired(await getDb(), new Date(expiring.expiresAt!.getTime() + 1000))) >= 1);
    const after = await (await getDb()).spendEntry.findUniqueOrThrow({ where: { id: expiring.id } });
    assert.equal(after.state, "released");
    assert.equal(after.heldCheckoutId, null);
  });

  test("a prepare that fails after reserving (a coin the wallet holds none of) gives back only its own hold: the earlier prepared payment, signed afterwards, still completes though the buyer paused the allowance since — its hold kept, or taken again when the failed prepare named another allowance", async () => {
    const { store, agent, checkouts } = await setup(2);
    const [c1, c2] = checkouts as [Checkout, Checkout];
    const db = await getDb();
    const first = await allow(agent, { limits: { day: 5000 } });
    const p1 = await prepare(store.slug, c1.id, agent);
    assert.equal(p1.status, 200, p1.text);
    const held = await db.spendEntry.findFirstOrThrow({ where: { heldCheckoutId: c1.id } });
    // the agent asks again in USDT: refused, nothing new prepared; the first transaction is still the one to sign
    const failed = await prepare(store.slug, c1.id, agent, { input_coin_type: "USDT" });
    assert.deepEqual(codes(failed.body), ["insufficient_funds"], failed.text);
    const kept = await db.spendEntry.findUniqueOrThrow({ where: { id: held.id } });
    assert.deepEqual(
      [kept.state, kept.heldCheckoutId, kept.expiresAt?.getTime()],
      ["held", c1.id, held.expiresAt?.getTime()],
    );
    await setAllowanceStatus({ buyerId: agent.buyerId, id: first.id, action: "pause", now: new Date() });
    const d1 = await signAndSubmit(agent.wallet, p1.body.transaction.bytes);
    const done = await complete(store.slug, c1, agent, d1, null);
    assert.equal(done.body.status, "completed", done.text);

    // prepared on the first allowance, asked again on a second one and failing: the first holds it again
    await setAllowanceStatus({ buyerId: agent.buyerId, id: first.id, action: "resume", now: new Date() });
    const second = await allow(agent, { limits: { day: 5000 } });
    const p2 = await prepare(store.slug, c2.id, agent, { payment_mandate_id: first.id });
    assert.equal(p2.status, 200, p2.text);
    const other = await prepare(store.slug, c2.id, agent, {
      payment_mandate_id: second.id,
      input_coin_type: "USDT",
    });
    assert.deepEqual(codes(other.body), ["insufficient_funds"], other.text);
    const again = await db.spendEntry.findFirstOrThrow({ where: { heldCheckoutId: c2.id, state: "held" } });
    assert.equal(again.allowanceId, first.id);
    assert.equal(again.amount, 2500);
    assert.equal(
      await db.spendEntry.count({ where: { allowanceId: second.id, state: "held" } }),
      0,
      "nothing held on the second allowance",
    );
    await setAllowanceStatus({ buyerId: agent.buyerId, id: first.id, action: "pause", now: new Date() });
    await setAllowanceStatus({ buyerId: agent.buyerId, id: second.id, action: "pause", now: new Date() });
    const d2 = await signAndSubmit(agent.wallet, p2.body.transaction.bytes);
    const paid = await complete(store.slug, c2, agent, d2, null);
    assert.equal(paid.body.status, "completed", paid.text);
    assert.equal(
      (await db.spendEntry.findUniqueOrThrow({ where: { debitOrderId: paid.body.order!.id } })).allowanceId,
      first.id,
    );
  });

  test("a payment that lands after its reservation expired and was released is reserved again within the limits (DECISIONS B20) and debited", async () => {
    const { store, agent, checkouts } = await setup(1);
    const [c1] = checkouts as [Checkout];
    const { id } = await allow(agent, { limits: { day: 5000 } });
    const prepared = await prepare(store.slug, c1.id, agent);
    assert.equal(prepared.status, 200, prepared.text);
    const reservation = await (
      await getDb()
    ).spendEntry.findFirstOrThrow({ where: { heldCheckoutId: c1.id } });
    assert.ok((await releaseExpired(await getDb(), new Date(reservation.expiresAt!.getTime() + 1000))) >= 1);
    const released = await (await getDb()).spendEntry.findUniqueOrThrow({ where: { id: reservation.id } });
    assert.deepEqual([released.state, released.heldCheckoutId], ["released", null]);
    // the buyer's wallet submitted the prepared payment anyway and the agent never came back: the sweep finds it
    // on the chain, the order is placed, and the money it took is spent from the allowance
    await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    await reconcileCryptoPayments({
      now: new Date(Date.now() + CRYPTO_RECONCILE_GRACE_MS + 1000),
      storeId: store.id,
    });
    const order = await (await getDb()).order.findUniqueOrThrow({ where: { checkoutId: c1.id } });
    const debits = (await entries(id)).filter((e) => e.kind === "debit");
    assert.deepEqual(
      debits.map((d) => [d.orderId, d.amount]),
      [[order.id, reservation.amount]],
    );
    assert.notEqual(debits[0]!.parentId, reservation.id, "a new reservation, taken under the limits");
  });

  test("bad allowances at payment-intent: unknown, another agent's, paused, revoked, expired, another store, an unlinked agent — each its code; nothing reserved or prepared", async () => {
    const { store, agent, checkouts } = await setup(1);
    const c = checkouts[0]!;
    const sibling = await linkBuyerAgent(suite.cimd, agent.wallet, undefined, agent.buyerId, {
      allowance: false,
    });
    const siblings = await allow(sibling, { limits: { day: 100_000 } });
    const paused = await allow(agent);
    await setAllowanceStatus({ buyerId: agent.buyerId, id: paused.id, action: "pause", now: new Date() });
    const revoked = await allow(agent);
    await setAllowanceStatus({ buyerId: agent.buyerId, id: revoked.id, action: "revoke", now: new Date() });
    const expired = await allow(agent);
    await (
      await getDb()
    ).intentMandate.update({
      where: { id: expired.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const elsewhere = await allow(agent, { merchants: ["another-store"] });
    const cases: [string, string][] = [
      ["alw_unknown", "not_found"],
      [siblings.id, "mandate_scope_mismatch"],
      [paused.id, "allowance_paused"],
      [revoked.id, "mandate_revoked"],
      [expired.id, "mandate_expired"],
      [elsewhere.id, "mandate_scope_mismatch"],
    ];
    for (const [mandateId, code] of cases) {
      const r = await prepare(store.slug, c.id, agent, { payment_mandate_id: mandateId });
      assert.deepEqual(codes(r.body), [code], `${mandateId}: ${r.text}`);
      assert.equal(messages(r.body)[0]!.path, "$.payment_mandate_id");
    }
    // revoking a paused one is final; resuming a revoked one is refused
    await assert.rejects(
      setAllowanceStatus({ buyerId: agent.buyerId, id: revoked.id, action: "resume", now: new Date() }),
      /revoked/,
    );
    // none of those is "the newest active allowance allowing this store": the prepare reserves nothing
    assert.equal((await prepare(store.slug, c.id, agent)).status, 200);
    assert.equal(await (await getDb()).spendEntry.count({ where: { checkoutId: c.id } }), 0);
    // an allowance whose agent the buyer unlinked cannot pay (the sibling's bearer dies with it)
    const good = await allow(agent, { limits: { day: 100_000 } });
    await revokeLinkedAgent({ buyerId: agent.buyerId, clientId: sibling.clientId });
    const unlinked = await prepare(store.slug, c.id, sibling, { payment_mandate_id: siblings.id });
    assert.equal(unlinked.status, 401, unlinked.text);
    assert.equal((await prepare(store.slug, c.id, agent, { payment_mandate_id: good.id })).status, 200);
    assert.equal(await (await getDb()).spendEntry.count({ where: { checkoutId: c.id } }), 1);
  });

  test("completion without a live reservation judges the ap2.intent_mandate sent: another wallet's, an older signature of an edited allowance, over the limit — refused, nothing charged twice; a valid one reserves and debits", async () => {
    const { store, agent, checkouts } = await setup(1);
    const c = checkouts[0]!;
    // prepared under an allowance that then lapsed and was revoked: no reservation holds the payment any more
    const first = await allow(agent);
    const p = await prepare(store.slug, c.id, agent);
    assert.equal(p.status, 200, p.text);
    const digest = await signAndSubmit(agent.wallet, p.body.transaction.bytes);
    await lapseReservations(c.id);
    await setAllowanceStatus({ buyerId: agent.buyerId, id: first.id, action: "revoke", now: new Date() });

    const stranger = await newWallet();
    const foreign = await signAllowance(stranger, agent.clientId);
    assert.deepEqual(codes((await complete(store.slug, c, agent, digest, foreign)).body), [
      "mandate_scope_mismatch",
    ]);

    // the buyer edits an allowance (same id, a new signature with a lower limit): the older signature is dead
    const id = `im_${randomUUID()}`;
    const v1 = await signAllowance(agent.wallet, agent.clientId, { id, limits: { day: 100_000 } });
    await saveIntentMandate({
      buyerId: agent.buyerId,
      buyerAddress: agent.wallet.address,
      clientId: agent.clientId,
      envelope: v1,
      now: new Date(),
    });
    const v2 = await signAllowance(agent.wallet, agent.clientId, { id, limits: { day: 2000 } });
    await saveIntentMandate({
      buyerId: agent.buyerId,
      buyerAddress: agent.wallet.address,
      clientId: agent.clientId,
      envelope: v2,
      now: new Date(),
    });
    assert.deepEqual(codes((await complete(store.slug, c, agent, digest, v1)).body), ["mandate_revoked"]);
    const over = await complete(store.slug, c, agent, digest, v2);
    assert.deepEqual(codes(over.body), ["spend_cap_exceeded"], over.text);
    assert.equal((messages(over.body)[0]!.details?.remaining as { day: number }).day, 2000);
    assert.equal(await (await getDb()).order.count({ where: { checkoutId: c.id } }), 0);

    const v3 = await signAllowance(agent.wallet, agent.clientId, { id, limits: { day: 10_000 } });
    await saveIntentMandate({
      buyerId: agent.buyerId,
      buyerAddress: agent.wallet.address,
      clientId: agent.clientId,
      envelope: v3,
      now: new Date(),
    });
    const done = await complete(store.slug, c, agent, digest, v3);
    assert.equal(done.body.status, "completed", done.text);
    const again = await complete(store.slug, c, agent, digest, v3);
    assert.equal(again.body.order?.id, done.body.order!.id);
    const ledger = await entries(id);
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.state, e.amount]),
      [
        ["reservation", "consumed", 2500],
        ["debit", "done", 2500],
      ],
    );
  });
});

describe("REST spend caps: other currencies and faults", () => {
  test("a store pricing in EUR reserves on a USD allowance at the oracle's rate rounded up; the debit uses the reservation's rate", async () => {
    const shop = await seedCryptoStore({ currency: "EUR", priceMinor: 1999 });
    const agent = await linkBuyerAgent(
      suite.cimd,
      await newWallet({ usdc: [100n * USDC_UNIT] }),
      undefined,
      undefined,
      { allowance: false },
    );
    const checkout = await createCryptoCheckout(shop.store, suite.apiKey, shop.variantId);
    const { id } = await allow(agent, { currency: "USD", limits: { day: 100_000 } });
    const expected = await toAllowanceCurrency({
      amount: 1999,
      currency: "EUR",
      allowanceCurrency: "USD",
      mode: "test",
    });
    const p = await prepare(shop.store.slug, checkout.id, agent);
    assert.equal(p.status, 200, p.text);
    const digest = await signAndSubmit(agent.wallet, p.body.transaction.bytes);
    const done = await complete(shop.store.slug, checkout, agent, digest, null);
    assert.equal(done.body.status, "completed", done.text);
    const ledger = await entries(id);
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.amount, e.originAmount, e.originCurrency]),
      [
        ["reservation", expected, 1999, "EUR"],
        ["debit", expected, 1999, "EUR"],
      ],
    );
    assert.notEqual(expected, 1999, "converted");
  });

  test("fault: the order cannot be placed (the last unit sold while the buyer signed) — no order, no debit; the payment is owed back", async () => {
    const shop = await seedCryptoStore();
    const agent = await linkBuyerAgent(
      suite.cimd,
      await newWallet({ usdc: [100n * USDC_UNIT] }),
      undefined,
      undefined,
      { allowance: false },
    );
    const checkout = await createCryptoCheckout(shop.store, suite.apiKey, shop.variantId);
    const { id } = await allow(agent, { limits: { day: 10_000 } });
    const p = await prepare(shop.store.slug, checkout.id, agent);
    assert.equal(p.status, 200, p.text);
    await (await getDb()).variant.update({ where: { id: shop.variantId }, data: { inventory: 0 } });
    const digest = await signAndSubmit(agent.wallet, p.body.transaction.bytes);
    const answer = await complete(shop.store.slug, checkout, agent, digest, null);
    assert.notEqual(answer.body.status, "completed", answer.text);
    assert.equal(await (await getDb()).order.count({ where: { checkoutId: checkout.id } }), 0);
    assert.deepEqual(
      (await entries(id)).filter((e) => e.kind !== "reservation"),
      [],
      "no debit without its order",
    );
  });
});

describe("REST spend caps on the card rail", () => {
  /** A card completion with the platform key (seed §5 rule 1), with or without the buyer's allowance. */
  const completeCard = async (slug: string, checkout: Checkout, intent: string | null) => {
    const { url, signer } = await signedProfile();
    const body = await cardCompletionBody(checkout, slug, signer, "pm_card_visa");
    return rest<Completed>("POST", `/s/${slug}/checkout-sessions/${checkout.id}/complete`, {
      headers: {
        "x-api-key": suite.apiKey,
        "ucp-agent": `profile="${url}"`,
        "idempotency-key": randomUUID(),
      },
      body: intent ? { ...body, ap2: { ...body.ap2, intent_mandate: intent } } : body,
    });
  };

  test("a card completion carrying ap2.intent_mandate is checked and debited in the order's transaction; over the limit spend_cap_exceeded before any charge; without one nothing is counted; a revoked agent's allowance is refused", async () => {
    const shop = await seedCryptoStore({ card: true });
    const agent = await linkBuyerAgent(suite.cimd, await newWallet(), undefined, undefined, {
      allowance: false,
    });
    const [c1, c2, c3, c4] = await Promise.all(
      [0, 1, 2, 3].map(() => createCryptoCheckout(shop.store, suite.apiKey, shop.variantId)),
    );
    const { id, envelope } = await allow(agent, { limits: { day: 4000 } });

    const paid = await completeCard(shop.store.slug, c1!, envelope);
    assert.equal(paid.body.status, "completed", paid.text);
    const debit = (await entries(id)).find((e) => e.kind === "debit");
    assert.equal(debit?.orderId, paid.body.order!.id);
    assert.equal(debit?.amount, 2500);

    const over = await completeCard(shop.store.slug, c2!, envelope);
    assert.deepEqual(codes(over.body), ["spend_cap_exceeded"], over.text);
    assert.equal((messages(over.body)[0]!.details?.remaining as { day: number }).day, 1500);
    assert.equal(await (await getDb()).cardPayment.count({ where: { checkoutId: c2!.id } }), 0, "no charge");
    assert.equal(await (await getDb()).order.count({ where: { checkoutId: c2!.id } }), 0);

    // the platform's own completion without the buyer's allowance is not the buyer's spend (seed §5 rule 1)
    const platform = await completeCard(shop.store.slug, c3!, null);
    assert.equal(platform.body.status, "completed", platform.text);
    assert.equal((await entries(id)).filter((e) => e.kind === "debit").length, 1);

    await revokeLinkedAgent({ buyerId: agent.buyerId, clientId: agent.clientId });
    assert.deepEqual(codes((await completeCard(shop.store.slug, c4!, envelope)).body), ["mandate_revoked"]);
  });

  test("race: 8 card completions carrying one allowance at once, room for 3: exactly 3 are charged and placed, 5 get spend_cap_exceeded with no charge; debits = order totals", async () => {
    const shop = await seedCryptoStore({ card: true });
    const agent = await linkBuyerAgent(suite.cimd, await newWallet(), undefined, undefined, {
      allowance: false,
    });
    const checkouts = await Promise.all(
      Array.from({ length: 8 }, () => createCryptoCheckout(shop.store, suite.apiKey, shop.variantId)),
    );
    const { id, envelope } = await allow(agent, { limits: { day: 7_600 } });
    const answers = await Promise.all(checkouts.map((c) => completeCard(shop.store.slug, c, envelope)));
    const outcomes = answers.map((a) => (a.body.status === "completed" ? "completed" : codes(a.body)[0]));
    assert.deepEqual(
      outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o ?? "?"]: (t[o ?? "?"] ?? 0) + 1 }), {}),
      { completed: 3, spend_cap_exceeded: 5 },
      JSON.stringify(outcomes),
    );
    const db = await getDb();
    const refused = checkouts.filter((_, i) => outcomes[i] !== "completed").map((c) => c.id);
    assert.equal(await db.cardPayment.count({ where: { checkoutId: { in: refused } } }), 0, "no charge");
    const debits = (await entries(id)).filter((e) => e.kind === "debit");
    assert.equal(debits.length, 3);
    assert.equal(
      debits.reduce((sum, e) => sum + e.amount, 0),
      3 * 2500,
    );
  });
});

describe("bridge spend caps", () => {
  test("confirm_purchase (card) with payment_mandate_id fetches the buyer's allowance with their bearer and each completion is debited; over the limit nothing is charged; without the bearer identity_required", async () => {
    const shop = await seedCryptoStore({ card: true });
    const agent = await linkBuyerAgent(suite.cimd, await newWallet(), undefined, undefined, {
      allowance: false,
    });
    const [c1, c2] = await Promise.all(
      [0, 1].map(() => createCryptoCheckout(shop.store, suite.apiKey, shop.variantId)),
    );
    const { id } = await allow(agent, { limits: { day: 4000 } });
    const profile = await startAgentProfileServer();
    const options = {
      baseUrl: TEST_BASE_URL,
      agentProfileUrl: profile.profileUrl,
      key: profile.key,
      fetch: serviceFetch(),
      retry: { baseDelayMs: 1, sleep: async () => {} },
    };
    const withBuyer = await connectBridge(options, {
      "x-api-key": suite.apiKey,
      authorization: agent.bearer,
    });
    const keyOnly = await connectBridge(options, { "x-api-key": suite.apiKey });
    // the agent read these checkouts over REST: it confirms the terms it read by their fingerprint
    const confirm = (client: typeof withBuyer, checkout: Checkout) =>
      client.callTool({
        name: "confirm_purchase",
        arguments: {
          checkouts: [
            {
              store_slug: shop.store.slug,
              checkout_id: checkout.id,
              terms_fingerprint: termsFingerprint(checkout as unknown as KitCheckout, shop.store.slug),
            },
          ],
          payment_method: "card",
          pay_with: "pm_card_visa",
          payment_mandate_id: id,
        },
      });
    try {
      const refused = toolError(await confirm(keyOnly, c1!));
      assert.deepEqual([refused.code, refused.path], ["identity_required", "$.payment_mandate_id"]);
      assert.equal(await (await getDb()).cardPayment.count({ where: { checkoutId: c1!.id } }), 0);

      const paid = resultJson(await confirm(withBuyer, c1!)) as { results: { status: string }[] };
      assert.equal(paid.results[0]?.status, "completed", JSON.stringify(paid));
      assert.equal((await entries(id)).filter((e) => e.kind === "debit").length, 1);

      const over = resultJson(await confirm(withBuyer, c2!)) as {
        results: { status: string; error?: { code: string } }[];
      };
      assert.equal(over.results[0]?.error?.code, "spend_cap_exceeded", JSON.stringify(over));
      assert.equal(await (await getDb()).cardPayment.count({ where: { checkoutId: c2!.id } }), 0);
    } finally {
      await withBuyer.close();
      await keyOnly.close();
      await profile.close();
    }
  });
});

describe("MCP spend caps", () => {
  test("list_my_allowances shows each allowance of the calling agent with what remains; prepare_checkout_payment over the limit answers spend_cap_exceeded with the remaining allowance", async () => {
    const { store, agent, checkouts } = await setup(2);
    const [c1, c2] = checkouts as [Checkout, Checkout];
    const { id } = await allow(agent, { limits: { day: 4000, week: 20_000 }, per_order_max: 3000 });
    const other = await linkBuyerAgent(suite.cimd, agent.wallet, undefined, agent.buyerId, {
      allowance: false,
    });
    await allow(other);
    const account = await connectMcpClient("/account/mcp", {
      headers: { authorization: agent.bearer, "request-id": "", "ucp-agent": "" },
    });
    const shop = await connectMcpClient(`/s/${store.slug}/mcp`, {
      headers: { authorization: agent.bearer, "ucp-agent": `profile="${(await signedProfile()).url}"` },
    });
    const meta = async () => ({
      "ucp-agent": { profile: (await signedProfile()).url },
      "idempotency-key": randomUUID(),
    });
    type Answer = { isError?: boolean; structuredContent?: Record<string, unknown> };
    try {
      const ok = (await shop.callTool({
        name: "prepare_checkout_payment",
        arguments: {
          meta: await meta(),
          id: c1.id,
          buyer_address: agent.wallet.address,
          payment_mandate_id: id,
        },
      })) as Answer;
      assert.ok(!ok.isError, JSON.stringify(ok));
      const listed = (await account.callTool({ name: "list_my_allowances", arguments: {} })) as Answer;
      const allowances = listed.structuredContent?.allowances as {
        id: string;
        status: string;
        remaining: { day: number; week: number; month: number | null; reserved: number };
        limits: { day: number };
      }[];
      assert.deepEqual(
        allowances.map((a) => a.id),
        [id],
        "only the calling agent's",
      );
      assert.equal(allowances[0]!.status, "active");
      assert.deepEqual(allowances[0]!.remaining, {
        currency: "USD",
        per_order_max: 3000,
        reserved: 2500,
        day: 1500,
        week: 17_500,
        month: null,
      });
      const refused = (await shop.callTool({
        name: "prepare_checkout_payment",
        arguments: { meta: await meta(), id: c2.id, buyer_address: agent.wallet.address },
      })) as Answer;
      const message = (refused.structuredContent?.messages as Message[])[0]!;
      assert.equal(message.code, "spend_cap_exceeded", JSON.stringify(refused));
      assert.equal((message.details?.remaining as { day: number }).day, 1500);
      assert.equal(await preparedCount(c2.id), 0);
    } finally {
      await account.close();
      await shop.close();
    }
  });
});

describe("race", () => {
  test("20 concurrent prepares and completions over 5 stores totalling 3× the daily limit: exactly the number that fits succeeds, the rest get spend_cap_exceeded, and the ledger sums to the orders", async () => {
    const agent = await linkBuyerAgent(
      suite.cimd,
      await newWallet({ usdc: [20n * 30n * USDC_UNIT] }),
      undefined,
      undefined,
      { allowance: false },
    );
    const shops = await Promise.all(Array.from({ length: 5 }, () => seedCryptoStore()));
    const checkouts = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const shop = shops[i % 5]!;
        return { shop, checkout: await createCryptoCheckout(shop.store, suite.apiKey, shop.variantId) };
      }),
    );
    // 20 × 25.00 = 500.00 = 3 × 166.67: six orders (150.00) fit, a seventh (175.00) does not
    const { id } = await allow(agent, { limits: { day: 16_667 } });
    const FITS = 6;
    const started = Date.now();
    // 1. twenty prepares at once: the reservations race under the allowance's lock
    const first = await Promise.all(
      checkouts.map(async ({ shop, checkout }) => {
        const p = await prepare(shop.store.slug, checkout.id, agent);
        return p.body.transaction === undefined ? (codes(p.body)[0] ?? `http ${p.status}`) : "reserved";
      }),
    );
    assert.equal(first.filter((o) => o === "reserved").length, FITS, JSON.stringify(first));
    // 2. the wallet pays the reserved ones one after the other (they all picked its largest coin, so each is
    // prepared again right before it is signed: the re-prepare keeps its reservation)
    const winners = checkouts.filter((_, i) => first[i] === "reserved");
    const digests = new Map<string, string>();
    for (const { shop, checkout } of winners) {
      const p = await prepare(shop.store.slug, checkout.id, agent);
      assert.ok(p.body.transaction, p.text);
      digests.set(checkout.id, await signAndSubmit(agent.wallet, p.body.transaction.bytes));
    }
    // 3. the six completions and the fourteen refused prepares again, all at once
    const outcomes = await Promise.all(
      checkouts.map(async ({ shop, checkout }) => {
        const digest = digests.get(checkout.id);
        if (!digest) {
          const p = await prepare(shop.store.slug, checkout.id, agent);
          return p.body.transaction === undefined ? (codes(p.body)[0] ?? `http ${p.status}`) : "reserved";
        }
        const done = await complete(shop.store.slug, checkout, agent, digest, null);
        return done.body.status === "completed" ? "completed" : (codes(done.body)[0] ?? done.text);
      }),
    );
    const tally = outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o]: (t[o] ?? 0) + 1 }), {});
    assert.deepEqual(tally, { completed: FITS, spend_cap_exceeded: 20 - FITS }, JSON.stringify(outcomes));
    const db = await getDb();
    const orders = await db.order.findMany({
      where: { checkoutId: { in: checkouts.map((c) => c.checkout.id) } },
    });
    assert.equal(orders.length, FITS);
    const ledger = await entries(id);
    const debits = ledger.filter((e) => e.kind === "debit");
    const orderTotal = orders.reduce(
      (s, o) =>
        s + ((o.totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount ?? 0),
      0,
    );
    assert.equal(debits.length, FITS);
    assert.equal(
      debits.reduce((s, e) => s + e.amount, 0),
      orderTotal,
    );
    assert.deepEqual(new Set(debits.map((d) => d.orderId)), new Set(orders.map((o) => o.id)));
    assert.equal(ledger.filter((e) => e.kind === "reservation" && e.state === "held").length, 0);
    assert.ok(orderTotal <= 16_667);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  });
});
