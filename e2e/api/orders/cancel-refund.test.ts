import assert from "node:assert/strict";
import { type JsonWebKey } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { cancelOrder } from "@/lib/orders/cancel-order";
import { placeOrder } from "@/lib/orders/place-order";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { refundOrder } from "@/lib/orders/refund-order";
import { settlePendingRefunds, settleRefund } from "@/lib/orders/settle-refund";
import { webhookWorkerStep } from "@/lib/webhooks/worker";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS } from "../checkout/helpers";

// Cancellations and refunds (issue #7 lifecycle: canceled, refunded). Orders are placed and paid by the real
// card completion against the sandbox PSP (a local test double of the Stripe API); money goes back through the
// same rail with the adjustment id as Stripe idempotency key. Checked: the order snapshot (lines removed,
// adjustments with negative totals, UCP order schema) on REST and MCP get_order, stock put back, the provider's
// refunded amount, the events and verified webhooks, exactly-once refunds under retries, races and a provider
// outage, and refusals that change nothing.

type WireOrder = {
  id: string;
  line_items: {
    id: string;
    quantity: { original: number; total: number; fulfilled: number };
    status: string;
  }[];
  adjustments?: {
    id: string;
    type: string;
    status: string;
    line_items?: { id: string; quantity: number }[];
    totals: { type: string; amount: number }[];
    description?: string;
  }[];
};

let receiver: WebhookReceiver;
let closeProfile: () => void;
let profileUrl: string;
let signer: PlatformSigner;
let store: Store;
let otherStore: Store;
let variantId: string;
let key: string;

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  const db = await getDb();
  store = await seedStore();
  otherStore = await seedStore();
  await db.store.update({ where: { id: store.id }, data: { webhookUrl: receiver.url("/merchant") } });
  const signingKey = await db.storeSigningKey.findFirstOrThrow({ where: { storeId: store.id } });
  receiver.trust({ ...(signingKey.publicJwk as JsonWebKey), kid: signingKey.kid });
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 100 }] })).variants[0]!
    .id;
  key = (await seedPlatformKey(["orders:read", "purchase:complete"])).key;
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

const paidOrder = (quantity = 2) =>
  completeCardOrder(store, { apiKey: key, profileUrl, signer, lines: [{ variantId, quantity }] });

const inventory = async () =>
  (await (await getDb()).variant.findUniqueOrThrow({ where: { id: variantId } })).inventory;

const intentOf = async (checkoutId: string) => {
  const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId);
  assert.ok(pi, "the completion charged through the sandbox");
  return pi;
};

const eventKinds = async (orderId: string) =>
  (await (await getDb()).orderEvent.findMany({ where: { orderId }, orderBy: { sequence: "asc" } })).map(
    (e) => e.kind,
  );

const readOrder = async (orderId: string) => {
  const read = await rest<WireOrder>("GET", `/s/${store.slug}/orders/${orderId}`, {
    headers: { "x-api-key": key },
  });
  assert.equal(read.status, 200, read.text);
  assertUcpSchema("shopping/order.json", read.body);
  return read.body;
};

const refusal = (code: string, path?: string) => (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  if (path) assert.equal(error.path, path);
  return true;
};

describe("cancel_order (merchant)", () => {
  test("a paid order is canceled: stock back, lines removed, the full total refunded once, events and webhooks", async () => {
    const stockBefore = await inventory();
    const { orderId, checkoutId, total } = await paidOrder(3);
    assert.equal(await inventory(), stockBefore - 3);

    const canceled = await cancelOrder(store.slug, orderId, { reason: "Buyer changed their mind" });
    assert.equal(canceled.status, "canceled");
    assert.equal(await inventory(), stockBefore, "every unit is back in stock");
    const pi = await intentOf(checkoutId);
    assert.equal(pi.amount_refunded, total, "the full charge went back to the card");

    const wire = await readOrder(orderId);
    assert.deepEqual(wire.line_items[0]?.quantity, { original: 3, total: 0, fulfilled: 0 });
    assert.equal(wire.line_items[0]?.status, "removed");
    const [adjustment] = wire.adjustments ?? [];
    assert.equal(adjustment?.type, "cancellation");
    assert.equal(adjustment?.status, "completed");
    assert.deepEqual(adjustment?.totals, [{ type: "total", amount: -total }]);
    assert.deepEqual(adjustment?.line_items, [{ id: wire.line_items[0]!.id, quantity: -3 }]);
    assert.equal(adjustment?.description, "Buyer changed their mind");
    assert.deepEqual(await eventKinds(orderId), [
      "order.placed",
      "order.paid",
      "order.canceled",
      "order.refunded",
    ]);

    // canceling again returns the canceled order: no second refund, no new event, stock unchanged
    const again = await cancelOrder(store.slug, orderId);
    assert.equal(again.status, "canceled");
    assert.equal((await intentOf(checkoutId)).amount_refunded, total);
    assert.equal(await inventory(), stockBefore);
    assert.equal((await eventKinds(orderId)).length, 4);

    // the cancellation and its refund reach the receivers as verified snapshots, in order
    for (let i = 0; i < 5; i++) await webhookWorkerStep(new Date(), { storeId: store.id });
    for (const path of ["/merchant", "/platform"]) {
      const snapshots = receiver.received
        .filter((r) => r.path === path && r.answered === 200 && r.body.includes(orderId))
        .map((r) => {
          assert.ok(r.verified && r.digestOk, "verified delivery");
          const body = JSON.parse(r.body) as WireOrder;
          assertUcpSchema("shopping/order.json", body);
          return [
            body.line_items[0]?.status,
            body.adjustments?.map((a) => `${a.type}:${a.status}`).join(",") ?? "",
          ];
        });
      assert.deepEqual(snapshots, [
        ["processing", ""],
        ["processing", ""],
        ["removed", "cancellation:pending"],
        ["removed", "cancellation:completed"],
      ]);
    }
    // a canceled order cannot be shipped or refunded again
    await assert.rejects(
      recordFulfillmentEvent(store.slug, orderId, { type: "shipped" }),
      refusal("conflict"),
    );
    await assert.rejects(refundOrder(store.slug, orderId), refusal("conflict"));
  });

  test("an order with shipped units cannot be canceled (refund instead); nothing changes", async () => {
    const { orderId, checkoutId } = await paidOrder(2);
    const order = await (
      await getDb()
    ).order.findUniqueOrThrow({ where: { id: orderId }, include: { lineItems: true } });
    await recordFulfillmentEvent(store.slug, orderId, {
      type: "shipped",
      lineItems: [{ id: order.lineItems[0]!.id, quantity: 1 }],
    });
    const stock = await inventory();
    await assert.rejects(cancelOrder(store.slug, orderId), refusal("conflict"));
    assert.equal(await inventory(), stock);
    assert.equal((await intentOf(checkoutId)).amount_refunded, 0);
    assert.equal((await readOrder(orderId)).adjustments, undefined);
  });

  test("an unpaid order is canceled with nothing to pay back", async () => {
    const db = await getDb();
    const created = await rest<{ id: string }>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: { "x-api-key": key, "idempotency-key": crypto.randomUUID() },
      body: {
        line_items: [{ item: { id: variantId }, quantity: 1 }],
        buyer: BUYER,
        shipping_address: SEED_ADDRESS,
        shipping_method_id: "standard",
      },
    });
    const order = await placeOrder(db, {
      checkoutId: created.body.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: null,
      now: new Date(),
    });
    const canceled = await cancelOrder(store.slug, order.id);
    assert.equal(canceled.status, "canceled");
    const adjustment = canceled.adjustments?.[0];
    assert.deepEqual([adjustment?.status, adjustment?.refundMinor], ["completed", 0]);
    assert.deepEqual(await eventKinds(order.id), ["order.placed", "order.canceled"]);
    await assert.rejects(refundOrder(store.slug, order.id), refusal("conflict"));
  });
});

describe("refund_order (merchant)", () => {
  test("partial, then the rest: the order is refunded once everything paid went back; over-refunds refused", async () => {
    const { orderId, checkoutId, total } = await paidOrder(2);
    const partial = await refundOrder(store.slug, orderId, { amount: 1000, reason: "Damaged box" });
    assert.equal(partial.status, "paid", "a partial refund leaves the order paid");
    assert.equal((await intentOf(checkoutId)).amount_refunded, 1000);

    await assert.rejects(
      refundOrder(store.slug, orderId, { amount: total }),
      refusal("invalid_request", "$.amount"),
    );
    for (const amount of [0, -5, 1.5]) {
      await assert.rejects(
        refundOrder(store.slug, orderId, { amount }),
        refusal("invalid_request", "$.amount"),
      );
    }
    assert.equal((await intentOf(checkoutId)).amount_refunded, 1000, "refused refunds moved no money");

    const rest_ = await refundOrder(store.slug, orderId);
    assert.equal(rest_.status, "refunded");
    assert.equal((await intentOf(checkoutId)).amount_refunded, total);
    await assert.rejects(refundOrder(store.slug, orderId, { amount: 1 }), refusal("conflict"));

    const wire = await readOrder(orderId);
    assert.deepEqual(
      wire.adjustments?.map((a) => [a.type, a.status, a.totals[0]?.amount]),
      [
        ["refund", "completed", -1000],
        ["refund", "completed", -(total - 1000)],
      ],
    );
    assert.deepEqual(await eventKinds(orderId), [
      "order.placed",
      "order.paid",
      "order.updated",
      "order.refunded",
      "order.updated",
      "order.refunded",
    ]);

    // MCP get_order (official SDK client) shows the same adjustments
    const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
    try {
      const result = await client.callTool({
        name: "get_order",
        arguments: { meta: toolMeta(), id: orderId },
      });
      assert.ok(!result.isError);
      assertUcpSchema("shopping/order.json", result.structuredContent);
      assert.deepEqual((result.structuredContent as WireOrder).adjustments, wire.adjustments);
    } finally {
      await client.close();
    }
  });

  test("a shipped order can be refunded (a return)", async () => {
    const { orderId, checkoutId, total } = await paidOrder(1);
    await recordFulfillmentEvent(store.slug, orderId, { type: "shipped" });
    const refunded = await refundOrder(store.slug, orderId, { reason: "Returned" });
    assert.equal(refunded.status, "refunded");
    assert.equal((await intentOf(checkoutId)).amount_refunded, total);
  });

  test("a provider outage leaves the refund pending (no second refund possible); the sweep settles it once", async () => {
    const { orderId, checkoutId, total } = await paidOrder(1);
    const saved = process.env.STRIPE_SANDBOX_URL;
    process.env.STRIPE_SANDBOX_URL = "http://127.0.0.1:9"; // nothing listens: the provider is unreachable
    try {
      await assert.rejects(refundOrder(store.slug, orderId), refusal("payment_provider_error"));
      // while it is pending, another refund or a cancellation cannot pay back a second time
      await assert.rejects(refundOrder(store.slug, orderId, { amount: 1 }), refusal("conflict"));
    } finally {
      if (saved === undefined) delete process.env.STRIPE_SANDBOX_URL;
      else process.env.STRIPE_SANDBOX_URL = saved;
    }
    assert.equal((await intentOf(checkoutId)).amount_refunded, 0);
    const pending = (await readOrder(orderId)).adjustments ?? [];
    assert.deepEqual(
      pending.map((a) => [a.type, a.status]),
      [["refund", "pending"]],
    );

    // two settlements racing (the worker's sweep and the admin command) send the same provider key: one refund
    const [a, b] = await Promise.all([
      settleRefund(await getDb(), pending[0]!.id),
      settlePendingRefunds({ storeId: store.id }),
    ]);
    assert.equal(a.status, "refunded");
    assert.ok(
      b.every((r) => !r.error),
      JSON.stringify(b),
    );
    assert.equal((await intentOf(checkoutId)).amount_refunded, total, "paid back exactly once");
    assert.deepEqual(await eventKinds(orderId), [
      "order.placed",
      "order.paid",
      "order.updated",
      "order.refunded",
    ]);
  });

  test("unknown orders and other stores' orders are not found; nothing changes", async () => {
    const { orderId, checkoutId } = await paidOrder(1);
    await assert.rejects(refundOrder(store.slug, "ord_nope"), refusal("not_found"));
    await assert.rejects(refundOrder(otherStore.slug, orderId), refusal("not_found"));
    await assert.rejects(cancelOrder(otherStore.slug, orderId), refusal("not_found"));
    await assert.rejects(
      cancelOrder(store.slug, orderId, { reason: "" }),
      refusal("invalid_request", "$.reason"),
    );
    assert.equal((await intentOf(checkoutId)).amount_refunded, 0);
    assert.equal((await readOrder(orderId)).adjustments, undefined);
  });
});
