import assert from "node:assert/strict";
import type { JsonWebKey } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { setStoreWebhookUrl } from "@/lib/stores/set-webhook-url";
import { appendOrderEvent, type OrderEventKind } from "@/lib/webhooks/append-order-event";
import { attemptDelivery, runDueDeliveries } from "@/lib/webhooks/deliver";
import { enableWebhookEndpoint, redeliverWebhook } from "@/lib/webhooks/manage-deliveries";
import { CLAIM_MS, MAX_ATTEMPTS, RETRY_DELAYS_S } from "@/lib/webhooks/schedule";
import { webhookWorkerRun, webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedStore } from "../../factories";
import { TEST_BASE_URL } from "../../helpers/app-client";
import { statementsOf } from "../../helpers/sql-statements";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Order-event webhooks: the transactional outbox, signed delivery to the store's URL and to the
// platform's declared webhook_url, the published retry schedule driven by an injected clock, per-order ordering,
// crash recovery, endpoint disabling, redelivery, and the delivery log. An independent receiver (test double)
// verifies every delivery with the store's published key.

let receiver: WebhookReceiver;

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
});
after(async () => {
  await receiver.close();
  await closeTestDatabase();
});

const publicKeyOf = async (store: Store): Promise<JsonWebKey> => {
  const db = await getDb();
  const key = await db.storeSigningKey.findFirstOrThrow({ where: { storeId: store.id } });
  return { ...(key.publicJwk as JsonWebKey), kid: key.kid };
};

/** A store whose webhook URL is `url` (blank disables), trusted by the receiver. */
const webhookStore = async (url: string | null, mode: "test" | "live" = "test"): Promise<Store> => {
  const db = await getDb();
  const store = await seedStore();
  const updated = await db.store.update({ where: { id: store.id }, data: { webhookUrl: url, mode } });
  receiver.trust(await publicKeyOf(updated));
  return updated;
};

/** A completed checkout and its order, as the completion issue will create them. */
const seedOrder = async (store: Store, agentProfile: string | null = null) => {
  const db = await getDb();
  const checkoutId = newId("checkout");
  await db.checkoutSession.create({
    data: {
      id: checkoutId,
      storeId: store.id,
      principalId: "key:test",
      status: "completed",
      currency: store.currency,
      agentProfile,
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });
  return db.order.create({
    data: {
      id: newId("order"),
      storeId: store.id,
      checkoutId,
      principalId: "key:test",
      currency: store.currency,
    },
  });
};

const emit = async (store: Store, orderId: string, kind: OrderEventKind, status: string) => {
  const db = await getDb();
  return db.$transaction((tx) =>
    appendOrderEvent(tx, { storeId: store.id, orderId, kind, payload: { id: orderId, status, kind } }),
  );
};

/** `n` orders, each with its placed event and its confirmation mail pending (to <prefix><i>@example.com). */
const placedOrders = async (store: Store, n: number, prefix: string) => {
  const db = await getDb();
  const orders = [];
  for (let i = 0; i < n; i++) {
    const order = await seedOrder(store);
    await db.order.update({
      where: { id: order.id },
      data: { buyer: { email: `${prefix}${i}@example.com` }, confirmationMail: "pending" },
    });
    await emit(store, order.id, "order.placed", "placed");
    orders.push(order);
  }
  return orders;
};

const at = (start: Date, seconds: number) => new Date(start.getTime() + seconds * 1000);
const forStore = (store: Store) => ({ storeId: store.id });
const receivedFor = (orderId: string) => receiver.received.filter((r) => r.body.includes(orderId));

describe("webhook delivery", () => {
  test("one event → one signed POST to the store URL, verified by an independent receiver, logged", async () => {
    receiver.setMode("ok");
    const store = await webhookStore(receiver.url("/store-hooks"));
    const order = await seedOrder(store);
    await emit(store, order.id, "order.placed", "placed");
    const outcomes = await webhookWorkerStep(new Date(), forStore(store));
    assert.deepEqual(
      outcomes.map((o) => o.ok),
      [true],
    );
    const [got] = receivedFor(order.id);
    assert.ok(got, "delivered");
    assert.equal(got.path, "/store-hooks");
    assert.ok(got.verified, "the signature verifies with the store's published key");
    assert.ok(got.digestOk, "Content-Digest is the sha-256 of the raw bytes");
    assert.deepEqual(JSON.parse(got.body), { id: order.id, status: "placed", kind: "order.placed" });
    assert.equal(got.ucpAgent, `profile="${TEST_BASE_URL}/s/${store.slug}/.well-known/ucp"`);
    for (const c of ["@method", "@authority", "@path", "content-digest", "content-type", "webhook-id"]) {
      assert.ok(got.covered.includes(c), `covers ${c}`);
    }
    assert.ok(got.covered.includes("webhook-timestamp") && got.covered.includes("ucp-agent"));
    assert.match(got.webhookId, /^[0-9a-f-]{36}$/);
    // UCP signs idempotency-key on every POST: the webhook's is its Webhook-Id
    assert.equal(got.idempotencyKey, got.webhookId);
    assert.ok(got.covered.includes("idempotency-key"), "covers idempotency-key");

    const db = await getDb();
    const delivery = await db.webhookDelivery.findUniqueOrThrow({
      where: { id: got.webhookId },
      include: { log: true },
    });
    assert.equal(delivery.state, "delivered");
    assert.equal(delivery.log.length, 1);
    assert.equal(delivery.log[0]?.status, 200);
    assert.match(delivery.log[0]?.responseSnippet ?? "", /"ucp"/);
  });

  test("a blank URL disables webhooks silently: no delivery, no attempt, no log", async () => {
    const store = await webhookStore("  ");
    const order = await seedOrder(store);
    await emit(store, order.id, "order.placed", "placed");
    assert.deepEqual(await webhookWorkerStep(new Date(), forStore(store)), []);
    const db = await getDb();
    assert.equal(await db.webhookDelivery.count({ where: { storeId: store.id } }), 0);
    assert.equal(await db.webhookEndpoint.count({ where: { storeId: store.id } }), 0);
    assert.equal(receivedFor(order.id).length, 0);
  });

  test("a receiver down for hours: retried on the schedule with the same id, timestamp and bytes; in order", async () => {
    receiver.setMode("down");
    const store = await webhookStore(receiver.url());
    const order = await seedOrder(store);
    await emit(store, order.id, "order.placed", "placed");
    await emit(store, order.id, "order.paid", "paid");
    await emit(store, order.id, "order.fulfilled", "fulfilled");
    const t0 = new Date();

    // Only the first event is attempted while it is pending: the later ones wait their turn.
    assert.equal((await webhookWorkerStep(t0, forStore(store))).length, 1);
    assert.equal(receivedFor(order.id).length, 1);
    // Not due before its retry time.
    assert.equal((await webhookWorkerStep(at(t0, RETRY_DELAYS_S[0] - 5), forStore(store))).length, 0);
    // Due after it; still down.
    assert.equal((await webhookWorkerStep(at(t0, RETRY_DELAYS_S[0] + 1), forStore(store))).length, 1);

    receiver.setMode("ok");
    // Hours later (an injected clock, not waiting): everything arrives, verified, in order.
    let clock = at(t0, 6 * 3600);
    for (let i = 0; i < 5; i++) {
      await webhookWorkerStep(clock, forStore(store));
      clock = at(clock, 1);
    }
    const seen = receivedFor(order.id);
    const firstTries = seen.filter((r) => JSON.parse(r.body).status === "placed");
    assert.equal(firstTries.length, 3, "two failed tries and the successful one");
    assert.equal(new Set(firstTries.map((r) => r.webhookId)).size, 1, "same Webhook-Id on every retry");
    assert.ok(
      firstTries.every((r) => r.idempotencyKey === r.webhookId),
      "Idempotency-Key = Webhook-Id on every retry",
    );
    assert.equal(new Set(firstTries.map((r) => r.timestamp)).size, 1, "same Webhook-Timestamp");
    assert.equal(new Set(firstTries.map((r) => r.body)).size, 1, "same bytes");
    const delivered = seen.filter((r) => r.answered === 200);
    assert.deepEqual(
      delivered.map((r) => JSON.parse(r.body).status),
      ["placed", "paid", "fulfilled"],
    );
    assert.ok(delivered.every((r) => r.verified && r.digestOk));
  });

  test("a worker that dies mid-delivery: the claim lapses and the same Webhook-Id goes out again", async () => {
    receiver.setMode("ok");
    const store = await webhookStore(receiver.url());
    const order = await seedOrder(store);
    await emit(store, order.id, "order.placed", "placed");
    const db = await getDb();
    const t0 = new Date();
    await webhookWorkerStep(at(t0, -1000), { storeId: "nobody" }); // nothing of ours
    // Fan out, then simulate a worker that claimed the delivery and crashed before recording anything.
    const { fanOutEvents } = await import("@/lib/webhooks/fan-out");
    await fanOutEvents(t0, forStore(store));
    const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { orderId: order.id } });
    await db.webhookDelivery.update({
      where: { id: delivery.id },
      data: { lockedUntil: new Date(t0.getTime() + CLAIM_MS) },
    });
    assert.equal((await webhookWorkerStep(at(t0, 1), forStore(store))).length, 0, "still claimed");
    const outcomes = await webhookWorkerStep(new Date(t0.getTime() + CLAIM_MS + 1000), forStore(store));
    assert.deepEqual(
      outcomes.map((o) => [o.deliveryId, o.ok]),
      [[delivery.id, true]],
    );
    assert.equal(receivedFor(order.id)[0]?.webhookId, delivery.id);
  });

  test("sustained failure: dead after the whole schedule, endpoint disabled, then re-enabled and redelivered", async () => {
    receiver.setMode("down");
    const store = await webhookStore(receiver.url());
    const order = await seedOrder(store);
    await emit(store, order.id, "order.placed", "placed");
    let clock = new Date();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const outcomes = await webhookWorkerStep(clock, forStore(store));
      assert.equal(outcomes.length, 1, `attempt ${attempt + 1} happens`);
      clock = at(clock, (RETRY_DELAYS_S[attempt] ?? 0) + 1);
    }
    const db = await getDb();
    const delivery = await db.webhookDelivery.findFirstOrThrow({
      where: { orderId: order.id },
      include: { endpoint: true, log: true },
    });
    assert.equal(delivery.state, "dead");
    assert.equal(delivery.log.length, MAX_ATTEMPTS);
    assert.ok(delivery.log.every((a) => a.status === 503 && a.error === "HTTP 503"));
    assert.ok(delivery.endpoint.disabledAt, "endpoint disabled after a day of failures");
    assert.match(delivery.endpoint.disabledReason ?? "", /failed attempts in a row/);

    // While disabled nothing is attempted, but nothing is dropped either.
    await emit(store, order.id, "order.canceled", "canceled");
    assert.equal((await webhookWorkerStep(at(clock, 10), forStore(store))).length, 0);
    assert.equal(await db.webhookDelivery.count({ where: { orderId: order.id, state: "pending" } }), 1);

    receiver.setMode("ok");
    await enableWebhookEndpoint(delivery.endpointId, store.id);
    await redeliverWebhook(delivery.id, store.id, at(clock, 20));
    for (let i = 0; i < 3; i++) await webhookWorkerStep(at(clock, 21 + i), forStore(store));
    const delivered = receivedFor(order.id).filter((r) => r.answered === 200);
    assert.deepEqual(
      delivered.map((r) => [JSON.parse(r.body).status, r.webhookId === delivery.id]),
      [
        ["placed", true],
        ["canceled", false],
      ],
    );
    // the manual redelivery carries the delivery's own Idempotency-Key, as every earlier attempt did
    const placedTries = receivedFor(order.id).filter((r) => r.webhookId === delivery.id);
    assert.ok(placedTries.length > 1);
    assert.ok(placedTries.every((r) => r.idempotencyKey === delivery.id));
  });

  test("the platform's declared webhook_url gets the same events, re-read from its profile", async () => {
    receiver.setMode("ok");
    const profile = await servePlatformProfile(receiver.url("/platform-hooks"));
    const profileUrl = profile.url;
    const store = await webhookStore(receiver.url("/store-hooks"));
    const order = await seedOrder(store, profileUrl);
    await emit(store, order.id, "order.placed", "placed");
    await webhookWorkerStep(new Date(), forStore(store));
    const paths = receivedFor(order.id)
      .map((r) => r.path)
      .sort();
    assert.deepEqual(paths, ["/platform-hooks", "/store-hooks"]);
    assert.ok(receivedFor(order.id).every((r) => r.verified));
    profile.close();
  });

  test("a poll's cost: one read and one write for the fan-out, one claim and one write for the mails, one read, and a claim and a record per round of deliveries", async () => {
    receiver.setMode("ok");
    const profile = await servePlatformProfile(receiver.url("/platform-hooks"));
    const store = await webhookStore(receiver.url("/store-hooks"));
    const db = await getDb();
    const placeOrder = async (email: string) => {
      const order = await seedOrder(store, profile.url);
      await db.order.update({
        where: { id: order.id },
        data: { buyer: { email }, confirmationMail: "pending", totals: [{ type: "total", amount: 1250 }] },
      });
      await emit(store, order.id, "order.placed", "placed");
      await emit(store, order.id, "order.paid", "paid");
      return order;
    };
    // warm: the endpoints recorded, the profile and the signing key read once
    const first = await placeOrder("first@example.com");
    await webhookWorkerStep(new Date(), forStore(store));
    assert.equal(receivedFor(first.id).length, 4);

    const orders = [await placeOrder("a@example.com"), await placeOrder("b@example.com")];
    const stepAt = new Date();
    const step = await statementsOf(() => webhookWorkerStep(stepAt, forStore(store)));
    // two orders × two events × two targets, each event after its predecessor at the same target
    assert.deepEqual(
      step.result.map((o) => o.ok),
      Array(8).fill(true),
    );
    for (const order of orders) {
      for (const path of ["/store-hooks", "/platform-hooks"]) {
        const statuses = receivedFor(order.id)
          .filter((r) => r.path === path)
          .map((r) => (JSON.parse(r.body) as { status: string }).status);
        assert.deepEqual(statuses, ["placed", "paid"], `${order.id} at ${path}`);
      }
    }
    const mails = await db.capturedMail.findMany({
      where: { to: { in: ["a@example.com", "b@example.com"] } },
    });
    assert.equal(mails.length, 2);
    assert.ok(
      mails.every((m) => m.subject.includes("is confirmed") && m.text.includes("12.50")),
      mails[0]?.text,
    );
    assert.equal(
      await db.order.count({ where: { id: { in: orders.map((o) => o.id) }, confirmationMail: "sent" } }),
      2,
    );
    // each delivery's attempt logged once, as it went, and the delivery marked delivered by its round's record
    const deliveries = await db.webhookDelivery.findMany({
      where: { orderId: { in: orders.map((o) => o.id) } },
      include: { log: true },
    });
    assert.equal(deliveries.length, 8);
    for (const delivery of deliveries) {
      assert.equal(delivery.state, "delivered");
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.lockedUntil, null);
      assert.equal(delivery.deliveredAt?.getTime(), stepAt.getTime());
      assert.equal(delivery.log.length, 1);
      assert.equal(delivery.log[0]!.status, 200);
      assert.equal(delivery.log[0]!.startedAt.getTime(), stepAt.getTime());
      assert.match(delivery.log[0]!.targetUrl, /\/(store|platform)-hooks$/);
    }
    // fan-out 2, mails 1 + 1 (the due mails claimed in one statement, their captures written with their marks in
    // another; each mail was one statement before), deliveries
    // 1 + 2 + 2: one claim for the orders' placed events, one for their paid events (each waits for its
    // predecessor), one record per claimed round; before: about 7 per event, 7 and then 2 per mail, 9 and then 2
    // per delivery, then a record per delivery (1 + 2 + 8)
    const budget = 2 + (1 + 1) + (1 + 2 + 2);
    assert.ok(
      step.sql.length <= budget,
      `${step.sql.length} statements, budget ${budget}:\n${step.sql.map((s) => `  ${s.slice(0, 120)}`).join("\n")}`,
    );
    profile.close();
  });

  test("claimed together, attempted in turn: an attempt the lease no longer covers is not started, and its claim is given back", async () => {
    receiver.setMode("slow");
    const store = await webhookStore(receiver.url("/store-hooks"));
    const db = await getDb();
    const orders = await placedOrders(store, 4, "lease");
    const { fanOutEvents } = await import("@/lib/webhooks/fan-out");
    const now = new Date();
    await fanOutEvents(now, { ...forStore(store), limit: 10 });
    // one claim for all four; each attempt times out after 300 ms, and the lease is 700 ms: the first starts at
    // once, the second at ~300 ms (ends before 700), the third would end past the lease
    const outcomes = await runDueDeliveries(now, { ...forStore(store), lease: 700, timeoutMs: 300 });
    assert.deepEqual(
      outcomes.map((o) => [o.ok, o.error?.split(":")[0]]),
      [
        [false, "timeout"],
        [false, "timeout"],
      ],
    );
    const deliveries = await db.webhookDelivery.findMany({
      where: { orderId: { in: orders.map((o) => o.id) } },
    });
    const attempted = deliveries.filter((d) => d.attempts === 1);
    const returned = deliveries.filter((d) => d.attempts === 0);
    assert.equal(attempted.length, 2);
    assert.deepEqual(
      returned.map((d) => [d.state, d.lockedUntil]),
      [
        ["pending", null],
        ["pending", null],
      ],
      "given back: due again at once",
    );
    receiver.setMode("ok");
    const next = await runDueDeliveries(now, forStore(store));
    assert.deepEqual(
      next.map((o) => o.deliveryId).sort(),
      returned.map((d) => d.id).sort(),
      "the two given back go out next; the two that timed out wait for their retry",
    );
    assert.ok(next.every((o) => o.ok));
  });

  test("two workers polling at once: every event fanned out once, every delivery and mail sent once", async () => {
    receiver.setMode("ok");
    const db = await getDb();
    // several rounds, each a store whose webhook endpoint does not exist yet: both workers record it at once (the
    // race a single round rarely meets) and neither fails for it
    for (let round = 0; round < 4; round++) {
      const store = await webhookStore(receiver.url("/store-hooks"));
      const orders = await placedOrders(store, 4, `twice${round}`);
      const now = new Date();
      const steps = await Promise.allSettled([
        webhookWorkerStep(now, forStore(store)),
        webhookWorkerStep(now, forStore(store)),
      ]);
      assert.deepEqual(
        steps.map((s) => s.status),
        ["fulfilled", "fulfilled"],
        `round ${round}: ${steps.map((s) => (s.status === "rejected" ? String(s.reason) : "ok")).join("; ")}`,
      );
      await webhookWorkerStep(now, forStore(store)); // what either left to the other (a claim it lost) is done
      assert.equal(await db.webhookEndpoint.count({ where: { storeId: store.id } }), 1, "one endpoint");
      for (const order of orders) {
        assert.equal(
          await db.webhookDelivery.count({ where: { orderId: order.id } }),
          1,
          "one delivery per event",
        );
        assert.equal(receivedFor(order.id).length, 1, "posted once");
      }
      const mails = await db.capturedMail.count({ where: { to: { startsWith: `twice${round}` } } });
      assert.equal(mails, 4, "one confirmation per order");
    }
  });

  test("a backlog larger than one poll's batch is worked off in one run, not one batch a second", async () => {
    receiver.setMode("ok");
    const store = await webhookStore(receiver.url("/store-hooks"));
    const db = await getDb();
    const orders = await placedOrders(store, 25, "backlog");
    // 25 mails and 25 deliveries: more than one step's 20 of each
    const outcomes = await webhookWorkerRun(forStore(store));
    assert.equal(outcomes.length, 25);
    assert.ok(outcomes.every((o) => o.ok));
    assert.equal(await db.capturedMail.count({ where: { to: { startsWith: "backlog" } } }), 25);
    for (const order of orders) assert.equal(receivedFor(order.id).length, 1, "posted once");
    assert.deepEqual(await webhookWorkerRun(forStore(store)), [], "nothing left");
  });

  test("redirects, huge bodies and private targets of live stores have clear logged outcomes", async () => {
    const db = await getDb();
    receiver.setMode("redirect");
    const redirecting = await webhookStore(receiver.url());
    const o1 = await seedOrder(redirecting);
    await emit(redirecting, o1.id, "order.placed", "placed");
    const [r1] = await webhookWorkerStep(new Date(), forStore(redirecting));
    assert.equal(r1?.ok, false);
    assert.match(r1?.error ?? "", /^redirect:/);

    receiver.setMode("huge");
    const huge = await webhookStore(receiver.url());
    const o2 = await seedOrder(huge);
    await emit(huge, o2.id, "order.placed", "placed");
    const [r2] = await webhookWorkerStep(new Date(), forStore(huge));
    assert.equal(r2?.ok, true, "a 2xx with a huge body still counts; only a snippet is kept");
    const attempt = await db.webhookAttempt.findFirstOrThrow({ where: { deliveryId: r2!.deliveryId } });
    assert.equal(attempt.responseSnippet.length, 512);

    receiver.setMode("ok");
    const live = await webhookStore(receiver.url(), "live");
    const o3 = await seedOrder(live);
    await emit(live, o3.id, "order.placed", "placed");
    const [r3] = await webhookWorkerStep(new Date(), forStore(live));
    assert.equal(r3?.ok, false);
    assert.match(r3?.error ?? "", /^scheme:/, "a live store never posts to plain http on loopback");
    assert.equal(receivedFor(o3.id).length, 0);
  });

  test("attemptDelivery on a delivery whose store lost its key logs the reason instead of throwing", async () => {
    receiver.setMode("ok");
    const store = await webhookStore(receiver.url());
    const order = await seedOrder(store);
    await emit(store, order.id, "order.placed", "placed");
    const db = await getDb();
    const { fanOutEvents } = await import("@/lib/webhooks/fan-out");
    await fanOutEvents(new Date(), forStore(store));
    await db.storeSigningKey.updateMany({ where: { storeId: store.id }, data: { retiredAt: new Date() } });
    const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { orderId: order.id } });
    const outcome = await attemptDelivery(delivery, new Date());
    assert.deepEqual([outcome.ok, outcome.error], [false, "the store has no signing key"]);
    assert.equal(receivedFor(order.id).length, 0, "nothing unsigned ever leaves");
  });
});

describe("the store's webhook URL setting", () => {
  const refused = async (slug: string, url: string, code: string, message: RegExp) =>
    assert.rejects(setStoreWebhookUrl(slug, url), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, code);
      assert.match(error.message, message);
      return true;
    });

  test("live stores: https to public hosts only, refused at configuration time; nothing stored on refusal", async () => {
    const store = await webhookStore("https://8.8.8.8/hooks", "live");
    await refused(store.slug, "http://8.8.8.8/hooks", "invalid_request", /https/);
    await refused(store.slug, "https://127.0.0.1/hooks", "invalid_request", /non-public/);
    await refused(store.slug, "https://localhost/hooks", "invalid_request", /non-public/);
    await refused(store.slug, "https://[::1]/hooks", "invalid_request", /non-public/);
    await refused(store.slug, "https://user:pw@8.8.8.8/hooks", "invalid_request", /credentials/);
    await refused(store.slug, "not a url", "invalid_request", /not a URL/);
    const db = await getDb();
    assert.equal(
      (await db.store.findUniqueOrThrow({ where: { id: store.id } })).webhookUrl,
      "https://8.8.8.8/hooks",
    );
    assert.equal(await setStoreWebhookUrl(store.slug, "https://1.1.1.1/orders"), "https://1.1.1.1/orders");
  });

  test("test stores may use loopback http; blank disables; unknown store is store_not_found", async () => {
    const store = await webhookStore(null);
    assert.equal(await setStoreWebhookUrl(store.slug, receiver.url()), receiver.url());
    assert.equal(await setStoreWebhookUrl(store.slug, "   "), null);
    await refused("no-such-store", "https://1.1.1.1/", "store_not_found", /./);
  });
});
