import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import pg from "pg";

import { createAccount, type AccountSummary } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import {
  cancelOrderAsMerchant,
  fulfilOrderAsMerchant,
  listStoreOrders,
  refundOrderAsMerchant,
  storeOrderDetail,
} from "@/lib/orders/admin-orders";
import { sendDueConfirmationMails } from "@/lib/orders/confirmation-mail";
import { dashboardFigures } from "@/lib/orders/dashboard-figures";
import { placeOrder } from "@/lib/orders/place-order";
import { orderPermalink } from "@/lib/orders/to-wire";
import {
  enableEndpointAsMerchant,
  redeliverAsMerchant,
  rotateWebhookKeyAsMerchant,
  setWebhookUrlAsMerchant,
  webhookOverview,
} from "@/lib/webhooks/admin-webhooks";
import { webhookWorkerStep } from "@/lib/webhooks/worker";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The merchant admin's orders, webhooks and dashboard, through the functions its pages and server actions call
// (each checks the account's role, then calls the domain operation): the buyer's confirmation mail sent once
// however often completion runs, the dashboard's figures against the orders made here, a race of two partial
// refunds, bad input that changes nothing, and every function refused to accounts outside the store (and owner
// actions refused to staff).

let receiver: WebhookReceiver;
let closeProfile: () => void;
let profileUrl: string;
let signer: PlatformSigner;
let key: string;
let keyName: string;
let store: Store;
let variantId: string;
let owner: AccountSummary;
let staff: AccountSummary;
let outsider: AccountSummary;

const account = (name: string) =>
  createAccount({
    name,
    email: `${name}-${process.pid}-${Date.now()}-${Math.random()}@example.com`,
    password: "long enough passphrase",
  });

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  ({ key, name: keyName } = await seedPlatformKey(["orders:read", "purchase:complete"]));
  store = await seedStore({ name: "Corner Shop" });
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 100 }] })).variants[0]!
    .id;
  owner = await account("owner");
  staff = await account("staff");
  outsider = await account("outsider");
  await grantStoreRole(owner.id, store.id, "owner");
  await grantStoreRole(staff.id, store.id, "staff");
  // the outsider owns a store of its own: owning a store opens no other
  const theirs = await seedStore();
  await grantStoreRole(outsider.id, theirs.id, "owner");
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

const paidOrder = (quantity = 1, on = store, variant = variantId) =>
  completeCardOrder(on, { apiKey: key, profileUrl, signer, lines: [{ variantId: variant, quantity }] });

const refusal = (code: string, path?: string) => (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  if (path) assert.equal(error.path, path);
  return true;
};

const mailsOf = async (orderId: string) =>
  (await (await getDb()).capturedMail.findMany({ where: { subject: { contains: orderId } } })).map((m) => m);

describe("order confirmation mail", () => {
  test("one mail per order, however often completion and the worker run", async () => {
    const { orderId, checkoutId } = await paidOrder();
    const db = await getDb();
    assert.equal((await db.order.findUniqueOrThrow({ where: { id: orderId } })).confirmationMail, "pending");
    // completion retried, and finished again by a sweep or a late callback: the same order, no second mail due
    for (let i = 0; i < 2; i++) {
      const again = await placeOrder(db, {
        checkoutId,
        storeId: store.id,
        handlerId: "svc.card",
        paymentRef: "pi_retried",
        now: new Date(),
      });
      assert.equal(again.id, orderId);
    }
    // two workers polling at once, then again
    await Promise.all([sendDueConfirmationMails(new Date()), sendDueConfirmationMails(new Date())]);
    await webhookWorkerStep(new Date(), { storeId: store.id });
    const mails = await mailsOf(orderId);
    assert.equal(mails.length, 1, "exactly one confirmation");
    const [mail] = mails;
    assert.equal(mail!.to, "ada@example.com");
    assert.match(mail!.subject, /^Corner Shop: /);
    assert.ok(mail!.text.includes(orderPermalink(store, getBaseUrl(), orderId)), mail!.text);
    assert.equal((await db.order.findUniqueOrThrow({ where: { id: orderId } })).confirmationMail, "sent");
  });

  test("an order whose buyer has no email gets no mail", async () => {
    const { orderId } = await paidOrder();
    const db = await getDb();
    await db.order.update({ where: { id: orderId }, data: { buyer: { first_name: "Ada" } } });
    await sendDueConfirmationMails(new Date(), { storeId: store.id });
    assert.equal((await mailsOf(orderId)).length, 0);
    assert.equal((await db.order.findUniqueOrThrow({ where: { id: orderId } })).confirmationMail, null);
  });

  test("a mail whose send failed stays pending and goes out on a later poll", async () => {
    const { orderId } = await paidOrder();
    const db = await getDb();
    // a worker claimed it and crashed: the claim lapses, the next poll after it sends
    const later = new Date(Date.now() + 120_000);
    await db.order.update({
      where: { id: orderId },
      data: { confirmationMailLockedUntil: new Date(Date.now() + 60_000) },
    });
    await sendDueConfirmationMails(new Date(), { storeId: store.id });
    assert.equal((await mailsOf(orderId)).length, 0, "held by the claim");
    await sendDueConfirmationMails(later, { storeId: store.id });
    assert.equal((await mailsOf(orderId)).length, 1);
  });

  test("two workers that reach the same due mail at once: the one that gets its row second finds it claimed", async () => {
    const { orderId } = await paidOrder();
    let letGo = async () => {};
    if (process.env.DATABASE_URL) {
      // on PostgreSQL the two claims really meet: a third connection holds the order's row, so both read the mail
      // as due and then wait for the row; the second to get it must see the first one's claim
      const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await holder.connect();
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM orders WHERE id = $1 FOR UPDATE", [orderId]);
      letGo = async () => {
        await holder.query("COMMIT");
        await holder.end();
      };
    }
    const both = Promise.all([
      sendDueConfirmationMails(new Date(), { storeId: store.id }),
      sendDueConfirmationMails(new Date(), { storeId: store.id }),
    ]);
    await sleep(300);
    await letGo();
    const [first, second] = await both;
    assert.deepEqual([...first, ...second], [orderId]);
    assert.equal((await mailsOf(orderId)).length, 1, "one confirmation");
  });

  test("claimed together, sent in turn: a mail the claim would no longer cover is not started, and given back", async () => {
    const orders = [(await paidOrder()).orderId, (await paidOrder()).orderId];
    const db = await getDb();
    // a lease no longer than one message's bound: not even the first may start
    const none = await sendDueConfirmationMails(new Date(), {
      storeId: store.id,
      lease: 5_000,
      sendBoundMs: 5_000,
    });
    assert.deepEqual(none, []);
    for (const id of orders) {
      const order = await db.order.findUniqueOrThrow({ where: { id } });
      assert.deepEqual([order.confirmationMail, order.confirmationMailLockedUntil], ["pending", null]);
      assert.equal((await mailsOf(id)).length, 0);
    }
    // due again at once: the next poll sends both, oldest first
    assert.deepEqual(await sendDueConfirmationMails(new Date(), { storeId: store.id }), orders);
  });
});

describe("orders in the admin", () => {
  test("list filters and search; detail timeline", async () => {
    const { orderId } = await paidOrder(2);
    const all = await listStoreOrders(staff, store.slug, {});
    assert.ok(all.orders.some((o) => o.id === orderId));
    const found = await listStoreOrders(owner, store.slug, { q: orderId });
    assert.deepEqual(
      found.orders.map((o) => o.id),
      [orderId],
    );
    assert.equal(found.orders[0]!.totalMinor, 2 * 2500 + 500);
    // the agent column names who placed it as the dashboard does: its platform key
    assert.equal(found.orders[0]!.agentName, keyName);
    assert.ok((await listStoreOrders(owner, store.slug, { q: "ada@example" })).total >= 1);
    assert.equal((await listStoreOrders(owner, store.slug, { q: "nobody@example.org" })).total, 0);
    assert.ok((await listStoreOrders(owner, store.slug, { rail: "svc.card", agent: profileUrl })).total >= 1);
    assert.equal((await listStoreOrders(owner, store.slug, { rail: "svc.crypto" })).total, 0);
    assert.equal((await listStoreOrders(owner, store.slug, { status: "refunded", q: orderId })).total, 0);
    assert.equal(
      (await listStoreOrders(owner, store.slug, { from: "2001-01-01", to: "2001-01-02" })).total,
      0,
    );
    await assert.rejects(
      listStoreOrders(owner, store.slug, { status: "lost" }),
      refusal("invalid_request", "$.status"),
    );
    await assert.rejects(
      listStoreOrders(owner, store.slug, { from: "yesterday" }),
      refusal("invalid_request", "$.from"),
    );

    await webhookWorkerStep(new Date(), { storeId: store.id });
    const detail = await storeOrderDetail(staff, store.slug, orderId);
    const kinds = detail.timeline.map((t) => t.kind);
    assert.ok(kinds.includes("event") && kinds.includes("payment"), JSON.stringify(kinds));
    assert.equal(detail.refundable, 2 * 2500 + 500);
    await assert.rejects(storeOrderDetail(owner, store.slug, "ord_missing"), refusal("not_found"));
  });

  test("fulfil, refund part: bad input changes nothing", async () => {
    const { orderId, checkoutId } = await paidOrder();
    const db = await getDb();
    await assert.rejects(
      fulfilOrderAsMerchant(staff, store.slug, orderId, { carrier: "", trackingNumber: "1Z" }),
      refusal("invalid_request", "$.carrier"),
    );
    await assert.rejects(
      fulfilOrderAsMerchant(staff, store.slug, orderId, {
        carrier: "UPS",
        trackingNumber: "1Z",
        trackingUrl: "http://track.example/1Z",
      }),
      refusal("invalid_request", "$.trackingUrl"),
    );
    assert.equal(await db.orderFulfillmentEvent.count({ where: { orderId } }), 0);
    await assert.rejects(
      refundOrderAsMerchant(owner, store.slug, orderId, { amountMinor: 999_999 }),
      refusal("invalid_request", "$.amount"),
    );
    assert.equal(await db.orderAdjustment.count({ where: { orderId } }), 0);

    const shipped = await fulfilOrderAsMerchant(staff, store.slug, orderId, {
      carrier: "UPS",
      trackingNumber: "1Z999",
      trackingUrl: "https://track.example/1Z999",
    });
    assert.equal(shipped.status, "fulfilled");
    const refunded = await refundOrderAsMerchant(owner, store.slug, orderId, {
      amountMinor: 700,
      reason: "dented",
    });
    assert.equal(refunded.adjustments?.at(-1)?.refundMinor, 700);
    const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId)!;
    assert.equal(pi.amount_refunded, 700);
    // shipped: cancelling is refused and changes nothing
    await assert.rejects(cancelOrderAsMerchant(owner, store.slug, orderId, {}), refusal("conflict"));
    assert.equal((await db.order.findUniqueOrThrow({ where: { id: orderId } })).status, "fulfilled");
  });

  test("two partial refunds at once whose sum exceeds the paid amount: at most the paid amount goes back", async () => {
    const { orderId, checkoutId, total } = await paidOrder();
    const part = total - 1000; // each alone fits, both together do not
    const results = await Promise.allSettled([
      refundOrderAsMerchant(owner, store.slug, orderId, { amountMinor: part }),
      refundOrderAsMerchant(owner, store.slug, orderId, { amountMinor: part }),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1, JSON.stringify(results));
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.ok(
      rejected.reason instanceof AppError && ["conflict", "invalid_request"].includes(rejected.reason.code),
    );
    const adjustments = await (await getDb()).orderAdjustment.findMany({ where: { orderId } });
    assert.equal(adjustments.length, 1, "one refund intent written");
    assert.equal(adjustments[0]!.refundMinor, part);
    const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId)!;
    assert.equal(pi.amount_refunded, part);
    assert.ok(pi.amount_refunded <= total);
  });

  test("an owner cancels an unshipped order and the money goes back", async () => {
    const { orderId, checkoutId, total } = await paidOrder();
    const canceled = await cancelOrderAsMerchant(owner, store.slug, orderId, { reason: "out of stock" });
    assert.equal(canceled.status, "canceled");
    const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId)!;
    assert.equal(pi.amount_refunded, total);
  });
});

describe("webhooks in the admin", () => {
  test("URL through the outbound rules, key rotation, the log and redelivery", async () => {
    const db = await getDb();
    await assert.rejects(
      setWebhookUrlAsMerchant(owner, store.slug, "ftp://example.com/hook"),
      refusal("invalid_request", "$.webhook_url"),
    );
    assert.equal((await db.store.findUniqueOrThrow({ where: { id: store.id } })).webhookUrl, null);
    const url = receiver.url("/merchant");
    assert.equal(await setWebhookUrlAsMerchant(owner, store.slug, url), url);
    const { orderId } = await paidOrder();
    await webhookWorkerStep(new Date(), { storeId: store.id });
    const overview = await webhookOverview(staff, store.slug);
    const ours = overview.deliveries.filter((d) => d.order_id === orderId);
    assert.ok(ours.length >= 2, "order.placed and order.paid were delivered");
    assert.equal(ours[0]!.state, "delivered");
    assert.equal(ours[0]!.attempts[0]!.status, 200);

    await redeliverAsMerchant(staff, store.slug, ours[0]!.webhook_id);
    const again = await db.webhookDelivery.findUniqueOrThrow({ where: { id: ours[0]!.webhook_id } });
    assert.equal(again.state, "pending");
    await assert.rejects(redeliverAsMerchant(staff, store.slug, "wh_missing"), refusal("not_found"));

    const before = overview.keys.find((k) => !k.retiredAt)!.kid;
    const rotated = await rotateWebhookKeyAsMerchant(owner, store.slug);
    assert.notEqual(rotated.kid, before);
    assert.deepEqual(rotated.retired, [before]);
    await setWebhookUrlAsMerchant(owner, store.slug, "");
  });
});

describe("dashboard", () => {
  test("figures match the orders made in this test", async () => {
    const shop = await seedStore({ name: "Dashboard Shop" });
    await seedShippingRates(shop, [{ code: "standard", priceMinor: 500 }]);
    const variant = (await seedProduct(shop, { variants: [{ priceMinor: 1234, inventory: 100 }] }))
      .variants[0]!.id;
    await grantStoreRole(owner.id, shop.id, "owner");
    await grantStoreRole(staff.id, shop.id, "staff");
    const a = await paidOrder(1, shop, variant);
    const b = await paidOrder(3, shop, variant);
    const c = await paidOrder(2, shop, variant);
    await cancelOrderAsMerchant(owner, shop.slug, c.orderId, {});
    await refundOrderAsMerchant(owner, shop.slug, b.orderId, { amountMinor: 300 });
    // a checkout that never became an order
    await rest("POST", `/s/${shop.slug}/checkout-sessions`, {
      headers: {
        "x-api-key": key,
        "ucp-agent": `profile="${profileUrl}"`,
        "idempotency-key": crypto.randomUUID(),
      },
      body: { line_items: [{ item: { id: variant }, quantity: 1 }] },
    });
    // everything of this shop on one fixed day, so the test does not depend on the clock (nor on midnight)
    const today = "2020-06-15";
    const at = new Date(`${today}T12:00:00.000Z`);
    const db = await getDb();
    await db.order.updateMany({ where: { storeId: shop.id }, data: { createdAt: at } });
    await db.checkoutSession.updateMany({ where: { storeId: shop.id }, data: { createdAt: at } });
    await db.orderAdjustment.updateMany({ where: { order: { storeId: shop.id } }, data: { occurredAt: at } });
    const figures = await dashboardFigures(staff, shop.slug, { from: today, to: today });
    const sales = a.total + b.total;
    assert.deepEqual(figures.perDay, [{ day: today, orders: 2, salesMinor: sales }]);
    assert.deepEqual(figures.byRail, [{ rail: "svc.card", orders: 2, salesMinor: sales }]);
    assert.deepEqual(
      figures.byAgent.map((a) => [a.agent, a.orders, a.salesMinor]),
      [[profileUrl, 2, sales]],
    );
    assert.match(figures.byAgent[0]!.name, /^test-/, "named after the platform key");
    assert.deepEqual(figures.totals, {
      orders: 2,
      salesMinor: sales,
      refundedMinor: 300 + c.total,
      averageOrderMinor: Math.round(sales / 2),
    });
    assert.deepEqual(figures.conversion, { checkouts: 4, converted: 3, rate: 3 / 4 });
    // each row's link (the orders list's filters, canceled orders left out) lists exactly the orders it counts
    const behind = async (filter: Record<string, string>) =>
      (
        await listStoreOrders(staff, shop.slug, { status: "not_canceled", from: today, to: today, ...filter })
      ).orders
        .map((o) => o.id)
        .sort();
    const counted = [a.orderId, b.orderId].sort();
    assert.deepEqual(await behind({}), counted);
    assert.deepEqual(await behind({ rail: "svc.card" }), counted);
    assert.deepEqual(await behind({ agent: profileUrl }), counted);
    assert.equal((await listStoreOrders(staff, shop.slug, { from: today, to: today })).total, 3);

    const week = await dashboardFigures(owner, shop.slug, { from: "2001-01-01", to: "2001-01-07" });
    assert.equal(week.perDay.length, 7);
    assert.equal(week.totals.orders, 0);
    await assert.rejects(
      dashboardFigures(owner, shop.slug, { from: today, to: "2001-01-01" }),
      refusal("invalid_request", "$.from"),
    );
    await assert.rejects(
      dashboardFigures(owner, shop.slug, { from: "2001-01-01", to: "2009-01-01" }),
      refusal("invalid_request", "$.to"),
    );
  });
});

describe("access", () => {
  test("accounts outside the store are refused everything; staff are refused the owners' actions", async () => {
    const { orderId } = await paidOrder();
    const calls: [string, (who: AccountSummary) => Promise<unknown>, "staff" | "owner"][] = [
      ["list orders", (w) => listStoreOrders(w, store.slug, {}), "staff"],
      ["order detail", (w) => storeOrderDetail(w, store.slug, orderId), "staff"],
      [
        "dashboard",
        (w) => dashboardFigures(w, store.slug, { from: "2001-01-01", to: "2001-01-01" }),
        "staff",
      ],
      ["webhooks", (w) => webhookOverview(w, store.slug), "staff"],
      ["redeliver", (w) => redeliverAsMerchant(w, store.slug, "wh_missing"), "staff"],
      ["enable endpoint", (w) => enableEndpointAsMerchant(w, store.slug, "we_missing"), "staff"],
      [
        "fulfil",
        (w) => fulfilOrderAsMerchant(w, store.slug, orderId, { carrier: "", trackingNumber: "" }),
        "staff",
      ],
      ["cancel", (w) => cancelOrderAsMerchant(w, store.slug, orderId, { reason: "x".repeat(501) }), "owner"],
      ["refund", (w) => refundOrderAsMerchant(w, store.slug, orderId, { amountMinor: 999_999 }), "owner"],
      ["webhook URL", (w) => setWebhookUrlAsMerchant(w, store.slug, "ftp://x"), "owner"],
      ["rotate key", (w) => rotateWebhookKeyAsMerchant(w, store.slug), "owner"],
    ];
    const db = await getDb();
    const keysBefore = await db.storeSigningKey.count({ where: { storeId: store.id } });
    for (const [name, call, need] of calls) {
      await assert.rejects(call(outsider), refusal("store_not_found"), `${name}: outsider`);
      if (need === "owner") await assert.rejects(call(staff), refusal("owner_required"), `${name}: staff`);
      else {
        // staff get past the role check: to the operation's own answer (a refusal of the bad input, or the data)
        await call(staff).catch((error: unknown) => {
          assert.ok(
            error instanceof AppError && error.code !== "owner_required" && error.code !== "store_not_found",
            `${name}: ${String(error)}`,
          );
        });
      }
    }
    assert.equal(await db.storeSigningKey.count({ where: { storeId: store.id } }), keysBefore);
    assert.equal(await db.orderAdjustment.count({ where: { orderId } }), 0);
    assert.equal((await db.order.findUniqueOrThrow({ where: { id: orderId } })).status, "paid");
  });
});
