import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { reconcileCryptoPayments } from "@/lib/checkout/completion/reconcile-crypto";
import { reconcileCardPayments } from "@/lib/checkout/completion/reconcile-payments";
import { decideLandedPayment, landedPaymentAt } from "@/lib/checkout/crypto/landed-approval";
import { getDb } from "@/lib/config/db";
import { answerSandboxChallenge } from "@/lib/payments/card/sandbox-client";
import { stripeSandbox, type StripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey } from "../../factories";
import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import {
  allow,
  bearerHeaders,
  completeWithDigest as complete,
  createCryptoCheckout,
  lapseReservations,
  linkBuyerAgent,
  newWallet,
  prepareWithBearer as prepare,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  signedProfile,
  USDC_UNIT,
  type BuyerAgent,
} from "../../helpers/crypto-purchase";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import type { Checkout } from "../checkout/helpers";

// DECISIONS B20, "the buyer's word is the limit": a checkout bound to a buyer and agent is that buyer's purchase on
// every rail and every path that can make its order (completion by any credential, the sweep, the buyer's approval),
// held to that agent's allowance where the order is placed. Each test below failed on the code before the rule: the
// card completion without an intent mandate, the platform key completing a bound checkout, the prepare without an
// allowance, the sweep placing a payment the completion could not, the refused digest that left the checkout held.
// Ends with the race: two agents of one buyer, each over-subscribed, across 3 stores, card and crypto mixed, with the
// sweep running during and after; money read from the Stripe sandbox's own ledger and the owed-back records.

let cimd: CimdServer;
let apiKey = "";
let stripe: StripeSandbox;

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  apiKey = (await seedPlatformKey(["purchase:complete"])).key;
  stripe = await stripeSandbox();
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

type Completed = Checkout & { order?: { id: string } };
type Message = { code?: string; path?: string; content?: string; details?: Record<string, unknown> };
type Envelope = { messages?: Message[]; continue_url?: string; code?: string };

const messages = (body: unknown): Message[] => ((body as Envelope).messages ?? []) as Message[];
const codes = (body: unknown) => messages(body).map((m) => m.code);

/** The buyer signs the agent an allowance and it is kept, as the spend-cap page does. */
const debitsOf = async (allowanceId: string) =>
  (await (await getDb()).spendEntry.findMany({ where: { allowanceId, kind: "debit" } })).reduce(
    (sum, e) => sum + e.amount,
    0,
  );

/** Net charged for a checkout by the Stripe sandbox's own ledger: succeeded charges − refunds. */
const netCharged = (checkoutId: string) =>
  stripe
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === checkoutId && pi.status === "succeeded")
    .reduce((sum, pi) => sum + pi.amount - pi.amount_refunded, 0);

/** A card completion with the given credential: the buyer's bearer, or the platform key. */
const completeCard = async (
  slug: string,
  checkout: Checkout,
  by: { bearer: string } | { apiKey: string },
  intent: string | null = null,
) => {
  const { url, signer } = await signedProfile();
  const body = await cardCompletionBody(checkout, slug, signer, "pm_card_visa");
  const headers =
    "bearer" in by
      ? await bearerHeaders(by.bearer)
      : { "x-api-key": by.apiKey, "ucp-agent": `profile="${url}"`, "idempotency-key": randomUUID() };
  return rest<Completed>("POST", `/s/${slug}/checkout-sessions/${checkout.id}/complete`, {
    headers,
    body: intent ? { ...body, ap2: { ...body.ap2, intent_mandate: intent } } : body,
  });
};

describe("the card rail: a buyer's purchase is held to the agent's allowance whoever completes it", () => {
  test("with the buyer's bearer and no intent mandate: reserved on the newest allowance and debited; past it spend_cap_exceeded before any charge; without any allowance mandate_required pointing at the spend-cap page", async () => {
    const shop = await seedCryptoStore({ card: true });
    const agent = await linkBuyerAgent(cimd, await newWallet(), undefined, undefined, { allowance: false });
    const [c1, c2, c3] = await Promise.all(
      [0, 1, 2].map(() => createCryptoCheckout(shop.store, apiKey, shop.variantId)),
    );

    const none = await completeCard(shop.store.slug, c1!, { bearer: agent.bearer });
    assert.deepEqual(codes(none.body), ["mandate_required"], none.text);
    assert.equal(messages(none.body)[0]!.path, "$.ap2.intent_mandate");
    assert.match(String((none.body as Envelope).continue_url), /\/account\/spend-caps$/);
    assert.equal(netCharged(c1!.id), 0, "nothing charged");

    const { id } = await allow(agent, { limits: { day: 4000 } });
    const paid = await completeCard(shop.store.slug, c1!, { bearer: agent.bearer });
    assert.equal(paid.body.status, "completed", paid.text);
    assert.equal(await debitsOf(id), 2500);

    const over = await completeCard(shop.store.slug, c2!, { bearer: agent.bearer });
    assert.deepEqual(codes(over.body), ["spend_cap_exceeded"], over.text);
    assert.equal(netCharged(c2!.id), 0, "nothing charged");
    assert.equal(await (await getDb()).order.count({ where: { checkoutId: c2!.id } }), 0);

    // the bearer's refused completion bound c2 to the pair: the platform key completing it is the buyer's spend too
    const byPlatform = await completeCard(shop.store.slug, c2!, { apiKey });
    assert.deepEqual(codes(byPlatform.body), ["spend_cap_exceeded"], byPlatform.text);
    assert.equal(netCharged(c2!.id), 0);

    // a platform's own unbound checkout is not the buyer's spend (seed §5 rule 1)
    const platform = await completeCard(shop.store.slug, c3!, { apiKey });
    assert.equal(platform.body.status, "completed", platform.text);
    assert.equal(await debitsOf(id), 2500);
  });
});

describe("the card rail's later paths: the buyer's 3-D Secure approval arriving after the room was spent", () => {
  test("the sweep (as the webhook and the hosted return, through the one finisher) refunds the charge instead of placing an order past the allowance", async () => {
    const shop = await seedCryptoStore({ card: true });
    const agent = await linkBuyerAgent(cimd, await newWallet(), undefined, undefined, { allowance: false });
    const { id } = await allow(agent, { limits: { day: 2500 } });
    const [slow, fast] = await Promise.all(
      [0, 1].map(() => createCryptoCheckout(shop.store, apiKey, shop.variantId)),
    );
    const { signer } = await signedProfile();
    const body = await cardCompletionBody(slow!, shop.store.slug, signer, "pm_card_threeDSecure2Required");
    const pending = await rest<Completed>(
      "POST",
      `/s/${shop.store.slug}/checkout-sessions/${slow!.id}/complete`,
      { headers: await bearerHeaders(agent.bearer), body },
    );
    assert.equal(pending.body.status, "requires_escalation", pending.text);
    // the buyer takes hours over 3-D Secure: the reservation lapses and the agent spends the room elsewhere
    await lapseReservations(slow!.id);
    const other = await completeCard(shop.store.slug, fast!, { bearer: agent.bearer });
    assert.equal(other.body.status, "completed", other.text);
    const intent = stripe.paymentIntents().find((pi) => pi.metadata.checkout_id === slow!.id)!;
    await answerSandboxChallenge(intent.id, true);
    await reconcileCardPayments({ now: new Date(Date.now() + 3 * 60_000), storeId: shop.store.id });
    const db = await getDb();
    assert.equal(await db.order.count({ where: { checkoutId: slow!.id } }), 0, "no order past the allowance");
    assert.equal(netCharged(slow!.id), 0, "the charge was refunded in full");
    assert.equal(await debitsOf(id), 2500);
  });
});

describe("the crypto rail", () => {
  test("a prepare without an allowance is mandate_required with the spend-cap page, before any transaction is built; one sent as ap2.intent_mandate is stored and reserves", async () => {
    const shop = await seedCryptoStore();
    const agent = await linkBuyerAgent(
      cimd,
      await newWallet({ usdc: [100n * USDC_UNIT] }),
      undefined,
      undefined,
      {
        allowance: false,
      },
    );
    const checkout = await createCryptoCheckout(shop.store, apiKey, shop.variantId);
    const refused = await prepare(shop.store.slug, checkout.id, agent);
    assert.deepEqual(codes(refused.body), ["mandate_required"], refused.text);
    assert.match(String((refused.body as Envelope).continue_url), /\/account\/spend-caps$/);
    assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 0);

    const envelope = await signAllowance(agent.wallet, agent.clientId, { limits: { day: 10_000 } });
    const ok = await prepare(shop.store.slug, checkout.id, agent, { ap2: { intent_mandate: envelope } });
    assert.equal(ok.status, 200, ok.text);
    const held = await (await getDb()).spendEntry.findFirst({ where: { heldCheckoutId: checkout.id } });
    assert.equal(held?.amount, 2500);
  });

  test("a payment that lands after its reservation lapsed and the room was spent elsewhere is never an order: the completion answers requires_escalation for the buyer, the sweep leaves it, the buyer declines it and it is owed back", async () => {
    const shop = await seedCryptoStore();
    const agent = await linkBuyerAgent(
      cimd,
      await newWallet({ usdc: [100n * USDC_UNIT] }),
      undefined,
      undefined,
      {
        allowance: false,
      },
    );
    const { id, envelope } = await allow(agent, { limits: { day: 4000 } });
    const [late, other] = await Promise.all(
      [0, 1].map(() => createCryptoCheckout(shop.store, apiKey, shop.variantId)),
    );
    const p1 = await prepare(shop.store.slug, late!.id, agent);
    assert.equal(p1.status, 200, p1.text);
    const digest = await signAndSubmit(agent.wallet, p1.body.transaction.bytes);
    await lapseReservations(late!.id);
    // the room goes to another purchase meanwhile
    const p2 = await prepare(shop.store.slug, other!.id, agent);
    const d2 = await signAndSubmit(agent.wallet, p2.body.transaction.bytes);
    assert.equal((await complete(shop.store.slug, other!, agent, d2, envelope)).body.status, "completed");

    // the agent completes naming the allowance: judged as sent, it has no room — refused, and no order follows
    const refused = await complete(shop.store.slug, late!, agent, digest, envelope);
    assert.deepEqual(codes(refused.body), ["spend_cap_exceeded"], refused.text);
    // the sweep finds the landed payment: no order (today's code placed it here, past the cap)
    await reconcileCryptoPayments({ graceMs: 0 });
    const db = await getDb();
    assert.equal(await db.order.count({ where: { checkoutId: late!.id } }), 0, "the sweep placed nothing");

    // naming no allowance, the agent reads where the payment stands: waiting for the buyer
    const answer = await complete(shop.store.slug, late!, agent, digest, null);
    assert.equal(answer.body.status, "requires_escalation", answer.text);
    assert.ok(codes(answer.body).includes("buyer_approval_required"), answer.text);
    const link = String((answer.body as { continue_url?: string }).continue_url);
    const token = link.split("/pay/")[1]!;
    assert.equal(await db.order.count({ where: { checkoutId: late!.id } }), 0);
    assert.ok((await debitsOf(id)) <= 4000);

    // what the agent was told stays true: the sweep again places nothing, and the link shows the payment waiting
    await reconcileCryptoPayments({ graceMs: 0 });
    assert.equal(await db.order.count({ where: { checkoutId: late!.id } }), 0);
    const waiting = await landedPaymentAt(shop.store.slug, token);
    assert.equal(waiting?.amount, 2500);

    // only the buyer decides
    await assert.rejects(
      decideLandedPayment({
        slug: shop.store.slug,
        token,
        viewer: { id: "byr_someone_else", suiAddress: "0x1" },
        decision: "approve",
      }),
      /No payment waits/,
    );
    const declined = await decideLandedPayment({
      slug: shop.store.slug,
      token,
      viewer: { id: agent.buyerId, suiAddress: agent.wallet.address },
      decision: "decline",
    });
    assert.equal(declined.kind, "owed_back");
    assert.equal(await db.order.count({ where: { checkoutId: late!.id } }), 0);
    const owed = await db.cryptoOwedBack.findMany({ where: { checkoutId: late!.id } });
    assert.equal(owed.length, 1, "the landed payment is owed back in full");
    assert.equal(owed[0]!.paymentDigest, digest);
    const session = await db.checkoutSession.findUniqueOrThrow({ where: { id: late!.id } });
    assert.equal(session.status, "ready_for_complete");
    assert.equal(await debitsOf(id), 2500);
  });

  test("approved by the buyer, the waiting payment becomes the order and the allowance records it; left undecided 24 hours, the sweep owes it back", async () => {
    const shop = await seedCryptoStore();
    const agent = await linkBuyerAgent(
      cimd,
      await newWallet({ usdc: [100n * USDC_UNIT] }),
      undefined,
      undefined,
      {
        allowance: false,
      },
    );
    const { id, envelope } = await allow(agent, { limits: { day: 3000 } });
    const [a, b, spent] = await Promise.all(
      [0, 1, 2].map(() => createCryptoCheckout(shop.store, apiKey, shop.variantId)),
    );
    const landed: { checkout: Checkout; digest: string }[] = [];
    for (const checkout of [a!, b!]) {
      const p = await prepare(shop.store.slug, checkout.id, agent);
      assert.equal(p.status, 200, p.text);
      landed.push({ checkout, digest: await signAndSubmit(agent.wallet, p.body.transaction.bytes) });
      await lapseReservations(checkout.id);
    }
    const p3 = await prepare(shop.store.slug, spent!.id, agent);
    const d3 = await signAndSubmit(agent.wallet, p3.body.transaction.bytes);
    assert.equal((await complete(shop.store.slug, spent!, agent, d3, envelope)).body.status, "completed");
    const db = await getDb();
    const tokens: string[] = [];
    for (const { checkout, digest } of landed) {
      const answer = await complete(shop.store.slug, checkout, agent, digest, null);
      assert.equal(answer.body.status, "requires_escalation", answer.text);
      tokens.push(String((answer.body as { continue_url?: string }).continue_url).split("/pay/")[1]!);
    }

    const approved = await decideLandedPayment({
      slug: shop.store.slug,
      token: tokens[0]!,
      viewer: { id: agent.buyerId, suiAddress: agent.wallet.address },
      decision: "approve",
    });
    assert.equal(approved.kind, "order_placed");
    assert.equal(await db.order.count({ where: { checkoutId: a!.id } }), 1);
    assert.equal(await debitsOf(id), 5000, "the buyer's approval is recorded on the allowance");
    const again = await complete(shop.store.slug, a!, agent, landed[0]!.digest, null);
    assert.equal(again.body.status, "completed", "the agent reads the order");

    // the other one is left: 24 hours later the sweep owes it back and reopens the checkout
    await reconcileCryptoPayments({ graceMs: 0, now: new Date(Date.now() + 25 * 60 * 60_000) });
    assert.equal(await db.order.count({ where: { checkoutId: b!.id } }), 0);
    assert.equal(await db.cryptoOwedBack.count({ where: { checkoutId: b!.id } }), 1);
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: b!.id } })).status,
      "ready_for_complete",
    );
    assert.equal(await landedPaymentAt(shop.store.slug, tokens[1]!), null);
  });

  test("a completion refused for its digest (nothing prepared for it here) changes nothing: the checkout stays ready and can still be updated", async () => {
    const shop = await seedCryptoStore();
    const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const [mine, theirs] = await Promise.all(
      [0, 1].map(() => createCryptoCheckout(shop.store, apiKey, shop.variantId)),
    );
    const p = await prepare(shop.store.slug, theirs!.id, agent);
    const digest = await signAndSubmit(agent.wallet, p.body.transaction.bytes);
    const before = await (await getDb()).checkoutSession.findUniqueOrThrow({ where: { id: mine!.id } });
    const refused = await complete(shop.store.slug, mine!, agent, digest, null);
    assert.equal(refused.status, 400, refused.text);
    assert.equal((refused.body as Envelope).code, "invalid_request");
    const after = await (await getDb()).checkoutSession.findUniqueOrThrow({ where: { id: mine!.id } });
    assert.equal(after.status, before.status);
    assert.equal(after.version, before.version, "nothing written");
  });
});

describe("race", () => {
  test("two agents of one buyer, each over-subscribed on its own allowance across 3 stores, card and crypto mixed, with the sweep during and after: no allowance exceeded; every landed payment is an order within it, waiting for the buyer, or owed back; card money nets to the orders", async () => {
    const perAgent = process.env.DATABASE_URL ? 10 : 4;
    const room = process.env.DATABASE_URL ? 4 : 2;
    const stores = await Promise.all([0, 1, 2].map(() => seedCryptoStore({ card: true })));
    const wallet = await newWallet({ usdc: [1000n * USDC_UNIT] });
    const first = await linkBuyerAgent(cimd, wallet, undefined, undefined, { allowance: false });
    const second = await linkBuyerAgent(cimd, wallet, undefined, first.buyerId, { allowance: false });
    const agents = [first, second];
    const allowances = await Promise.all(agents.map((a) => allow(a, { limits: { day: room * 2500 } })));
    type Job = {
      agent: BuyerAgent;
      slug: string;
      checkout: Checkout;
      rail: "card" | "crypto";
      digest?: string;
    };
    const jobs: Job[] = [];
    for (const [i, agent] of agents.entries()) {
      for (let n = 0; n < perAgent; n++) {
        const shop = stores[(n + i) % 3]!;
        jobs.push({
          agent,
          slug: shop.store.slug,
          checkout: await createCryptoCheckout(shop.store, apiKey, shop.variantId),
          rail: n % 2 === 0 ? "card" : "crypto",
        });
      }
    }
    // crypto: the prepares that fit reserve and their wallets pay; half of those reservations then lapse, so their
    // payments arrive with no room held for them
    for (const job of jobs.filter((j) => j.rail === "crypto")) {
      const p = await prepare(job.slug, job.checkout.id, job.agent);
      if (p.status !== 200) continue;
      job.digest = await signAndSubmit(job.agent.wallet, p.body.transaction.bytes);
      if (jobs.indexOf(job) % 4 === 1) await lapseReservations(job.checkout.id);
    }
    let sweeping = true;
    const sweep = (async () => {
      while (sweeping) {
        await reconcileCryptoPayments({ graceMs: 0 });
        await sleep(50);
      }
    })();
    const answers = await Promise.all(
      jobs.map((job) =>
        job.rail === "card"
          ? completeCard(job.slug, job.checkout, { bearer: job.agent.bearer })
          : job.digest
            ? complete(job.slug, job.checkout, job.agent, job.digest, null)
            : Promise.resolve(null),
      ),
    );
    sweeping = false;
    await sweep;
    await reconcileCryptoPayments({ graceMs: 0 });

    const db = await getDb();
    for (const [i, allowance] of allowances.entries()) {
      assert.ok(
        (await debitsOf(allowance.id)) <= room * 2500,
        `agent ${i}: debits within the allowance (${await debitsOf(allowance.id)})`,
      );
    }
    for (const [i, job] of jobs.entries()) {
      const orders = await db.order.findMany({ where: { checkoutId: job.checkout.id } });
      assert.ok(orders.length <= 1, "one order per checkout");
      const order = orders[0];
      if (job.rail === "card") {
        assert.equal(netCharged(job.checkout.id), order ? 2500 : 0, `card ${i}: net charged = order total`);
        if (!order) {
          assert.ok(
            codes(answers[i]?.body).includes("spend_cap_exceeded"),
            `card ${i} refused for the cap: ${answers[i]?.text}`,
          );
        }
        continue;
      }
      if (!job.digest) continue;
      const attempt = await db.paymentAttempt.findUnique({ where: { providerRef: job.digest } });
      const share = await db.cryptoPayment.findFirst({ where: { checkoutId: job.checkout.id } });
      const waiting = await db.paymentAttempt.count({
        where: { checkoutId: job.checkout.id, state: "awaiting_approval" },
      });
      const owed = await db.cryptoOwedBack.count({ where: { checkoutId: job.checkout.id } });
      assert.ok(
        (order && order.paymentRef === share?.preparedDigest) || waiting === 1 || owed >= 1,
        `crypto ${i}: an order, waiting for the buyer, or owed back (attempt ${attempt?.state ?? "?"})`,
      );
      if (order) {
        const debit = await db.spendEntry.findUnique({ where: { debitOrderId: order.id } });
        assert.ok(debit, `crypto ${i}: its order is debited`);
      }
      // what the agent was told stays true: requires_escalation is not followed by an order
      if (answers[i]?.body.status === "requires_escalation") assert.equal(order, undefined);
    }
  });
});
