import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import type { JWK } from "jose";

import { finishPayment } from "@/lib/checkout/completion/finish-payment";
import { holdSession } from "@/lib/checkout/completion/hold-session";
import { reconcileCardPayments } from "@/lib/checkout/completion/reconcile-payments";
import { startAttempt } from "@/lib/checkout/completion/start-attempt";
import { handleStripeWebhook, SANDBOX_WEBHOOK_SECRET } from "@/lib/checkout/completion/stripe-webhook";
import { returnFromProvider } from "@/lib/checkout/hosted-payment";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { findAttempt, recordAttempt } from "@/lib/payments/attempts";
import { answerSandboxChallenge } from "@/lib/payments/card/sandbox-client";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import { stripeSandbox, stripeSignatureHeader, type StripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout, type Message } from "./helpers";

// One payment per checkout (DECISIONS B12), raced: "3-DS, then a second card, then the late 3-DS approval". The
// agent's first card escalates to 3-DS; the agent then completes with another card; the buyer approves the first
// challenge at the provider anyway (Stripe.js / the bank's page), and its late outcome reaches us through the
// Stripe webhook, the hosted page's return and the reconciliation sweep, in every order, while the second
// completion runs or after it. The provider is down for cancels meanwhile (the sandbox answers them 503), so the
// superseded attempt cannot be canceled and the late approval really charges: the case only refunds can fix.
// Each run checks money from the fake provider's own ledger: the late PaymentIntent really succeeded there,
// charges − refunds = the order total, and there is exactly one order. When the provider can cancel, the
// superseded attempt is canceled at once and the buyer's late approval finds nothing to approve (its own test).
// PostgreSQL gets 50 runs (true concurrency over a pool); PGlite (one connection) a smaller run: it shows the
// orderings, not true concurrency.

const ON_POSTGRES = Boolean(process.env.DATABASE_URL);
const RUNS = ON_POSTGRES ? 50 : 12;
const DECLINE_RUNS = ON_POSTGRES ? 16 : 6;

let store: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let variant: { id: string };
let sandbox: StripeSandbox;

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore();
  variant = (await seedProduct(store, { variants: [{ priceMinor: 1200, inventory: 10_000 }] })).variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 300 }]);
  key = (await seedPlatformKey(["purchase:complete", "orders:read"])).key;
  sandbox = await stripeSandbox();
});
after(closeTestDatabase);

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const readyCheckout = async () => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: variant.id }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  return created.body;
};

const complete = async (c: Checkout, token: string) =>
  rest<Checkout & { continue_url?: string; messages: Message[] }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${c.id}/complete`,
    {
      headers: headers(),
      body: {
        payment: {
          instruments: [
            { handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token } },
          ],
        },
        ap2: {
          checkout_mandate: await signCheckoutMandate(mandateTerms(c, store.slug), {
            privateJwk: agentKey.privateJwk,
            kid: agentKey.kid,
            exp: Math.floor(Date.now() / 1000) + 600,
          }),
        },
      },
    },
  );

const intentsOf = (checkoutId: string) =>
  sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId);

/** Net charged for a checkout read from the fake provider's own ledger: captured charges − refunds. */
const netCharged = (checkoutId: string) =>
  intentsOf(checkoutId)
    .filter((pi) => pi.status === "succeeded")
    .reduce((sum, pi) => sum + pi.amount - pi.amount_refunded, 0);

/** The provider's payment_intent.succeeded event, delivered to our endpoint signed as Stripe signs it. */
const deliverWebhook = async (paymentIntentId: string) => {
  const event = sandbox
    .events()
    .find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === paymentIntentId);
  assert.ok(event, "the provider emitted the success");
  const payload = JSON.stringify(event);
  return handleStripeWebhook(
    store.slug,
    payload,
    stripeSignatureHeader(payload, SANDBOX_WEBHOOK_SECRET, Math.floor(Date.now() / 1000)),
  );
};

const sweep = () => reconcileCardPayments({ now: new Date(Date.now() + 3 * 60_000), storeId: store.id });

/** The completion's attempt step for `c`, charging `total` to the test visa, as a completion calls it. */
const startVisaAttempt = async (c: Checkout, total: number) =>
  startAttempt(await getDb(), {
    store,
    checkoutId: c.id,
    handlerId: "svc.card",
    adapter: stripeCardRail,
    amount: total,
    currency: c.currency,
    token: "pm_card_visa",
    returnUrl: `http://127.0.0.1/s/${store.slug}/pay/x`,
  });

type LateEvent = "webhook" | "return" | "sweep";
const permutations = <T>(items: readonly T[]): T[][] =>
  items.length <= 1
    ? [[...items]]
    : items.flatMap((item, i) =>
        permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
      );
const ORDERINGS = permutations<LateEvent>(["webhook", "return", "sweep"]);
/** When the buyer approves the first challenge relative to the agent's second completion. */
const TIMINGS = ["before", "during", "after"] as const;

const jitter = () => sleep(Math.floor(Math.random() * 4));

/** The provider cannot cancel anything while `body` runs (an outage of its cancel endpoint). */
const withoutCancels = async (body: () => Promise<void>) => {
  sandbox.failCancels(Number.MAX_SAFE_INTEGER);
  try {
    await body();
  } finally {
    sandbox.failCancels(0);
  }
};

test("3-DS, then a second card: the superseded PaymentIntent is canceled at the provider, the buyer's late approval finds nothing to approve, charged once", async () => {
  const db = await getDb();
  const c = await readyCheckout();
  const escalated = await complete(c, "pm_card_threeDSecure2Required");
  assert.equal(escalated.body.status, "requires_escalation", escalated.text);
  const firstIntent = intentsOf(c.id)[0]!;
  const paid = await complete(c, "pm_card_visa");
  assert.equal(paid.body.status, "completed", paid.text);
  const first = sandbox.paymentIntents().find((pi) => pi.id === firstIntent.id)!;
  assert.equal(first.status, "canceled", "canceled at the provider when the second card started");
  assert.equal(
    (await db.paymentAttempt.findFirstOrThrow({ where: { providerRef: firstIntent.id } })).state,
    "canceled",
  );
  // the buyer answers the bank's challenge late: nothing is pending any more
  await answerSandboxChallenge(firstIntent.id, true);
  assert.equal(sandbox.paymentIntents().find((pi) => pi.id === firstIntent.id)!.status, "canceled");
  await sweep();
  const order = await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } });
  const total = (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")!;
  assert.equal(netCharged(c.id), total.amount, "net charged (provider ledger) = order total");
  assert.equal(intentsOf(c.id).filter((pi) => pi.amount_refunded > 0).length, 0, "nothing to refund");
  assert.equal(await db.paymentAttempt.count({ where: { checkoutId: c.id, isCurrent: true } }), 1);
});

test(`3-DS, then a second card, then the late 3-DS approval — ${RUNS} runs over every ordering: the late payment really succeeded, net charged = order total, one order`, () =>
  withoutCancels(async () => {
    const db = await getDb();
    for (let run = 0; run < RUNS; run++) {
      // deterministic enumeration: 3 timings × 6 orderings of the late events, cycled; random delays on top
      const timing = TIMINGS[run % TIMINGS.length]!;
      const ordering = ORDERINGS[Math.floor(run / TIMINGS.length) % ORDERINGS.length]!;
      const label = `run ${run} (approval ${timing} the second card; late events ${ordering.join(" → ")})`;
      const c = await readyCheckout();
      const escalated = await complete(c, "pm_card_threeDSecure2Required");
      assert.equal(escalated.body.status, "requires_escalation", `${label}: ${escalated.text}`);
      const firstIntent = intentsOf(c.id)[0]!;
      const token = new URL(escalated.body.continue_url!).pathname.split("/").at(-1)!;

      const approve = async () => {
        await jitter();
        await answerSandboxChallenge(firstIntent.id, true);
      };
      const lateEvents = async () => {
        const retries: LateEvent[] = [];
        for (const event of ordering) {
          await jitter();
          if (event === "webhook") {
            const answer = await deliverWebhook(firstIntent.id);
            // Stripe redelivers an event we answered with a 5xx
            if (answer.status !== 200) retries.push("webhook");
          } else if (event === "return") await returnFromProvider(store.slug, token, firstIntent.id);
          else await sweep();
        }
        for (const event of retries) if (event === "webhook") await deliverWebhook(firstIntent.id);
      };
      const secondCard = async () => {
        await jitter();
        return complete(c, "pm_card_visa");
      };

      let second: Awaited<ReturnType<typeof complete>>;
      if (timing === "before") {
        await approve();
        [second] = await Promise.all([secondCard(), lateEvents()]);
      } else if (timing === "during") {
        [second] = await Promise.all([secondCard(), approve().then(lateEvents)]);
      } else {
        second = await secondCard();
        await approve();
        await lateEvents();
      }

      // never "completed" beside an error that invites another payment
      assert.equal(second.body.status, "completed", `${label}: ${second.text}`);
      assert.ok(
        !second.body.messages.some((m) => m.type === "error"),
        `${label}: ${JSON.stringify(second.body.messages)}`,
      );
      const orders = await db.order.findMany({ where: { checkoutId: c.id } });
      assert.equal(orders.length, 1, `${label}: one order`);
      const total = (orders[0]!.totals as { type: string; amount: number }[]).find(
        (t) => t.type === "total",
      )!;
      const late = sandbox.paymentIntents().find((pi) => pi.id === firstIntent.id)!;
      assert.equal(
        late.status,
        "succeeded",
        `${label}: the late PaymentIntent really succeeded at the provider`,
      );
      assert.equal(netCharged(c.id), total.amount, `${label}: net charged (provider ledger) = order total`);
      // the order keeps the payment that paid for it; any extra success is refunded in full and shown on it
      const paid = intentsOf(c.id).find((pi) => pi.id === orders[0]!.paymentRef)!;
      assert.equal(paid.amount_refunded, 0, `${label}: the order's own payment is not refunded`);
      const extras = intentsOf(c.id).filter((pi) => pi.status === "succeeded" && pi.id !== paid.id);
      for (const extra of extras)
        assert.equal(extra.amount_refunded, extra.amount, `${label}: refunded in full`);
      if (extras.length > 0) {
        const adjustments = await db.orderAdjustment.findMany({
          where: { orderId: orders[0]!.id, type: "duplicate_payment_refund" },
        });
        assert.equal(adjustments.length, extras.length, `${label}: each refund shown on the order once`);
        const events = await db.orderEvent.findMany({
          where: { orderId: orders[0]!.id, kind: "order.updated" },
        });
        assert.ok(events.length >= extras.length, `${label}: emitted as an order event`);
        const attempts = await db.paymentAttempt.findMany({ where: { checkoutId: c.id } });
        for (const extra of extras) {
          assert.equal(attempts.find((a) => a.providerRef === extra.id)?.state, "refunded", label);
        }
      }
      assert.equal(
        await db.paymentAttempt.count({ where: { checkoutId: c.id, isCurrent: true } }),
        1,
        `${label}: one current attempt`,
      );
    }
  }));

test(`a declined card racing a good one (${DECLINE_RUNS} runs): never "completed" beside an error inviting another payment; one order, charged once`, async () => {
  const db = await getDb();
  for (let run = 0; run < DECLINE_RUNS; run++) {
    const c = await readyCheckout();
    // which card starts first and by how much (0–3 ms either way) is enumerated: the window in which the good
    // card's order lands between the decline and its answer is narrow
    const lead = (run % 8) - 4;
    const [declined, good] = await Promise.all([
      sleep(Math.max(lead, 0)).then(() => complete(c, "pm_card_chargeDeclined")),
      sleep(Math.max(-lead, 0)).then(() => complete(c, "pm_card_visa")),
    ]);
    assert.equal(good.body.status, "completed", good.text);
    for (const answer of [declined, good]) {
      if (answer.body.status !== "completed") continue;
      assert.ok(
        !answer.body.messages.some((m) => m.type === "error"),
        `run ${run}: completed beside ${JSON.stringify(answer.body.messages)}`,
      );
    }
    if (declined.body.status !== "completed") {
      assert.equal(declined.body.messages.find((m) => m.type === "error")?.code, "payment_failed");
    }
    assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 1);
    const order = await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } });
    const total = (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")!;
    assert.equal(netCharged(c.id), total.amount, `run ${run}: charged once`);
  }
});

test("a finisher handed its attempt as recorded, superseded since by another instance's card (every ordering): one order, paid by the current attempt; the other payment refunded; net charged = order total", async () => {
  // the completion gives the finisher the attempt it has just recorded instead of reading it back; another
  // instance's completion with another card, which read the card-payment record before this charge was written
  // on it, may charge and make its payment current in between (this process's serialisation of charges does not
  // reach it): what the finisher holds then says "current" when it no longer is
  const db = await getDb();
  const orderings = [["stale", "fresh"], ["fresh", "stale"], ["together"]] as const;
  for (const ordering of orderings) {
    const c = await readyCheckout();
    const total = c.totals.find((t) => t.type === "total")!.amount;
    const started = await startVisaAttempt(c, total);
    assert.ok(started.kind === "outcome" && started.outcome.kind === "succeeded" && started.attempt);
    const mine = { ref: started.outcome.paymentRef!, attempt: started.attempt };
    assert.equal(mine.attempt.isCurrent, true);
    // the other instance's charge and its record, as its completion makes them
    const theirs = await stripeCardRail.start({
      store,
      checkoutId: c.id,
      amount: total,
      currency: c.currency,
      credential: { type: "card_token", token: "pm_card_mastercard" },
      idempotencyKey: `acs-${c.id}-other-instance`,
      returnUrl: `http://127.0.0.1/s/${store.slug}/pay/x`,
    });
    assert.equal(theirs.kind, "succeeded");
    await recordAttempt(db, {
      checkoutId: c.id,
      storeId: store.id,
      rail: "svc.card",
      providerRef: theirs.paymentRef!,
      amount: total,
      currency: c.currency,
      state: "succeeded",
      likelyNew: true,
    });
    assert.equal((await findAttempt(mine.ref))?.isCurrent, false, "the attempt handed over is stale");
    const finishStale = () => finishPayment(db, store, c.id, mine.ref, { attempt: mine.attempt });
    const finishFresh = () => finishPayment(db, store, c.id, theirs.paymentRef!);
    if (ordering[0] === "together") await Promise.all([finishStale(), finishFresh()]);
    else if (ordering[0] === "stale") await finishStale().then(finishFresh);
    else await finishFresh().then(finishStale);
    const label = ordering.join(" then ");
    assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 1, label);
    const order = await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } });
    assert.equal(intentsOf(c.id).length, 2, label);
    assert.equal(netCharged(c.id), total, `${label}: net charged = order total`);
    const attempts = await db.paymentAttempt.findMany({ where: { checkoutId: c.id } });
    assert.deepEqual(
      attempts.filter((a) => a.isCurrent).map((a) => a.providerRef),
      [order.paymentRef],
      `${label}: the order's payment is the one current attempt`,
    );
    const other = [mine.ref, theirs.paymentRef].find((ref) => ref !== order.paymentRef)!;
    assert.equal(attempts.find((a) => a.providerRef === other)?.state, "refunded", label);
    const pi = intentsOf(c.id).find((p) => p.id === other)!;
    assert.equal(pi.amount_refunded, pi.amount, `${label}: the other payment refunded in full`);
    // a finisher that comes after the order writes no success (its writes are guarded by the order's absence):
    // the card-payment record keeps naming the payment that paid. (Run together, both finishers may write theirs
    // before either places the order, and the record names the last one written.)
    if (ordering[0] !== "together") {
      assert.equal(
        (await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } })).paymentIntentId,
        order.paymentRef,
        label,
      );
    }
  }
});

test("a finisher handed its current attempt while the card-payment record is being refunded (a crash after the refund's intent): the refund is finished, never ordered, charged nothing net", async () => {
  const db = await getDb();
  const c = await readyCheckout();
  const total = c.totals.find((t) => t.type === "total")!.amount;
  const started = await startVisaAttempt(c, total);
  assert.ok(started.kind === "outcome" && started.outcome.kind === "succeeded" && started.attempt);
  assert.equal(started.attempt.isCurrent, true);
  await db.cardPayment.update({ where: { checkoutId: c.id }, data: { status: "refunding" } });
  const finished = await finishPayment(db, store, c.id, started.outcome.paymentRef!, {
    attempt: started.attempt,
    method: { kind: "card", brand: "visa", last4: "1111" },
  });
  assert.equal(finished.result, "refunded", JSON.stringify(finished));
  assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 0, "never ordered");
  assert.equal(netCharged(c.id), 0, "refunded in full, once");
  assert.equal((await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } })).status, "refunded");
  // the receipt's card was written with the success, as it always was before the record is looked at
  const attempt = await findAttempt(started.outcome.paymentRef!);
  assert.equal(attempt?.cardLast4, "1111");
});

test("a superseded success whose refund was interrupted after its intent (attempt refunding) is finished by the sweep with the same key: refunded once, shown once", () =>
  withoutCancels(async () => {
    const db = await getDb();
    const c = await readyCheckout();
    const escalated = await complete(c, "pm_card_threeDSecure2Required");
    assert.equal(escalated.body.status, "requires_escalation", escalated.text);
    const firstIntent = intentsOf(c.id)[0]!;
    const paid = await complete(c, "pm_card_visa");
    assert.equal(paid.body.status, "completed", paid.text);
    await answerSandboxChallenge(firstIntent.id, true);
    // the process died right after writing the refund intent, before asking the provider
    const { count } = await db.paymentAttempt.updateMany({
      where: { providerRef: firstIntent.id },
      data: { state: "refunding" },
    });
    assert.equal(count, 1);
    await sweep();
    await sweep();
    assert.equal((await deliverWebhook(firstIntent.id)).status, 200);
    const late = sandbox.paymentIntents().find((pi) => pi.id === firstIntent.id)!;
    assert.equal(late.amount_refunded, late.amount, "refunded in full, once");
    const order = await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } });
    assert.notEqual(order.paymentRef, firstIntent.id, "the order keeps the payment that paid for it");
    const total = (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")!;
    assert.equal(netCharged(c.id), total.amount);
    assert.equal(
      await db.orderAdjustment.count({ where: { orderId: order.id, type: "duplicate_payment_refund" } }),
      1,
    );
    // the order's wire shows the refund of the extra payment
    const read = await rest<{ adjustments?: { type: string }[] }>(
      "GET",
      `/s/${store.slug}/orders/${order.id}`,
      {
        headers: headers(),
      },
    );
    assert.equal(read.status, 200, read.text);
    assert.ok(
      read.body.adjustments?.some((a) => a.type === "duplicate_payment_refund"),
      read.text,
    );
  }));

test("a webhook for a PaymentIntent of an unknown checkout or another store changes nothing", async () => {
  const db = await getDb();
  const other = await seedStore();
  const c = await readyCheckout();
  const escalated = await complete(c, "pm_card_threeDSecure2Required");
  assert.equal(escalated.body.status, "requires_escalation");
  const pi = intentsOf(c.id)[0]!;
  await answerSandboxChallenge(pi.id, true);
  const event = sandbox
    .events()
    .find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === pi.id)!;
  const payload = JSON.stringify(event);
  const answer = await handleStripeWebhook(
    other.slug,
    payload,
    stripeSignatureHeader(payload, SANDBOX_WEBHOOK_SECRET, Math.floor(Date.now() / 1000)),
  );
  assert.equal(answer.status, 200);
  assert.equal(
    await db.order.count({ where: { checkoutId: c.id } }),
    0,
    "another store's event places nothing",
  );
  assert.equal(
    sandbox.paymentIntents().find((p) => p.id === pi.id)!.amount_refunded,
    0,
    "and refunds nothing",
  );
});

test("a good card racing a 3-DS card, the challenge approved late: one order, net charged = order total", async () => {
  const db = await getDb();
  for (let run = 0; run < (ON_POSTGRES ? 8 : 4); run++) {
    const c = await readyCheckout();
    const lead = (run % 4) - 2;
    const answers = await Promise.all([
      sleep(Math.max(lead, 0)).then(() => complete(c, "pm_card_visa")),
      sleep(Math.max(-lead, 0)).then(() => complete(c, "pm_card_threeDSecure2Required")),
    ]);
    for (const a of answers) {
      if (a.body.status === "completed") assert.ok(!a.body.messages.some((m) => m.type === "error"), a.text);
    }
    // the buyer approves any challenge anyway; then the webhook and the sweep arrive
    for (const pi of intentsOf(c.id).filter((p) => p.status === "requires_action")) {
      await answerSandboxChallenge(pi.id, true);
      await deliverWebhook(pi.id);
    }
    await sweep();
    const orders = await db.order.findMany({ where: { checkoutId: c.id } });
    assert.equal(orders.length, 1, `run ${run}: ${answers.map((a) => a.text).join(" | ")}`);
    const total = (orders[0]!.totals as { type: string; amount: number }[]).find((t) => t.type === "total")!;
    assert.equal(netCharged(c.id), total.amount, `run ${run}: net charged = order total`);
  }
});

test(`first attempts racing at the card-payment record (${DECLINE_RUNS} runs): one record, one provider key, one PaymentIntent, one current attempt, charged once`, async () => {
  const db = await getDb();
  for (let run = 0; run < DECLINE_RUNS; run++) {
    const c = await readyCheckout();
    const total = c.totals.find((t) => t.type === "total")!.amount;
    // the step the completions run once each holds the session, called at once: each creates the record or
    // finds the one a racer created, and charges with the key of that record's attempt
    const outcomes = await Promise.all([1, 2, 3].map(() => startVisaAttempt(c, total)));
    const refs = new Set(outcomes.map((o) => (o.kind === "outcome" ? o.outcome.paymentRef : "retry")));
    assert.equal(refs.size, 1, `one PaymentIntent for every racer: ${[...refs].join(", ")}`);
    assert.equal(intentsOf(c.id).length, 1, "one PaymentIntent at the provider");
    assert.equal(netCharged(c.id), total, "charged once, the total");
    const records = await db.cardPayment.findMany({ where: { checkoutId: c.id } });
    assert.equal(records.length, 1);
    assert.equal(records[0]!.attempt, 1);
    assert.equal(records[0]!.amount, total);
    // each racer records the payment as if the provider had just created it: one attempt row, current, succeeded
    const attempts = await db.paymentAttempt.findMany({ where: { checkoutId: c.id } });
    assert.deepEqual(
      attempts.map((a) => [a.providerRef, a.isCurrent, a.state, a.amount]),
      [[[...refs][0], true, "succeeded", total]],
    );
  }
});

test(`completions racing at the hold, which creates the card payment with it (${DECLINE_RUNS} runs): one card payment (attempt 1, the total), one PaymentIntent, one order, net charged = order total; every answer is that order`, async () => {
  const db = await getDb();
  for (let run = 0; run < DECLINE_RUNS; run++) {
    const c = await readyCheckout();
    const total = c.totals.find((t) => t.type === "total")!.amount;
    const answers = await Promise.all([1, 2, 3].map(() => complete(c, "pm_card_visa")));
    const orders = await db.order.findMany({ where: { checkoutId: c.id } });
    assert.equal(orders.length, 1, "one order");
    for (const answer of answers) {
      assert.equal(answer.body.status, "completed", answer.text);
      assert.equal((answer.body as { order?: { id?: string } }).order?.id, orders[0]!.id, answer.text);
    }
    const records = await db.cardPayment.findMany({ where: { checkoutId: c.id } });
    assert.deepEqual(
      records.map((r) => [r.attempt, r.amount, r.status]),
      [[1, total, "succeeded"]],
    );
    assert.equal(intentsOf(c.id).length, 1, "one PaymentIntent at the provider");
    assert.equal(netCharged(c.id), total, "charged once, the total");
    assert.equal(orders[0]!.paymentRef, records[0]!.paymentIntentId);
  }
});

test("a hold that finds a card payment written since its read goes round: the racer's record stays as written, and the completion then pays on it, charged once", async () => {
  const db = await getDb();
  const c = await readyCheckout();
  const total = c.totals.find((t) => t.type === "total")!.amount;
  const session = await db.checkoutSession.findUniqueOrThrow({
    where: { id: c.id },
    include: { lineItems: { orderBy: { position: "asc" } } },
  });
  const priced = {
    draft: { instruments: [] },
    priced: {
      totals: session.totals,
      lines: session.lineItems.map((l) => ({
        id: l.id,
        variant: { id: l.variantId },
        quantity: l.quantity,
        unitPrice: l.priceMinor,
      })),
    },
  } as never;
  // a racer's record (an earlier attempt, declined) lands between this completion's read and its hold
  const racer = await db.cardPayment.create({
    data: {
      checkoutId: c.id,
      storeId: store.id,
      attempt: 2,
      status: "declined",
      amount: 1,
      currency: c.currency,
    },
  });
  const hold = await holdSession(db, session, priced, undefined, {
    storeId: store.id,
    amount: total,
    currency: c.currency,
  });
  assert.deepEqual(hold, { kind: "changed" }, "read again, never charged on a record it did not write");
  assert.deepEqual(await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } }), racer);
  // the next completion finds the record (its attempt 2) and charges with that attempt's key
  const paid = await complete(c, "pm_card_visa");
  assert.equal(paid.body.status, "completed", paid.text);
  const record = await db.cardPayment.findUniqueOrThrow({ where: { checkoutId: c.id } });
  assert.deepEqual([record.attempt, record.amount, record.status], [2, total, "succeeded"]);
  assert.equal(intentsOf(c.id).length, 1);
  assert.equal(netCharged(c.id), total);
  assert.equal(await db.order.count({ where: { checkoutId: c.id } }), 1);
});
