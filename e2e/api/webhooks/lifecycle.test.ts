import assert from "node:assert/strict";
import { randomUUID, type JsonWebKey } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { placeOrder } from "@/lib/orders/place-order";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS } from "../checkout/helpers";

// Placing and paying (the real card completion), shipping and delivering an order produces verified webhooks at both targets — the store's URL and
// the webhook_url the platform declares in its profile — in order, each the full order snapshot (issue #7,
// "Done when"), and get_order shows the same fulfilment facts.

type OrderBody = {
  id: string;
  line_items: { id: string; quantity: { total: number; fulfilled: number }; status: string }[];
  fulfillment: {
    events: { type: string; carrier?: string; tracking_number?: string; tracking_url?: string }[];
  };
};

let receiver: WebhookReceiver;
let profileUrl: string;
let closeProfile: () => void;
let store: Store;
let variantId: string;
let key: string;
let signer: PlatformSigner;

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  // The platform's profile: its order capability declares where its webhooks go.
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;

  const db = await getDb();
  store = await seedStore();
  await db.store.update({ where: { id: store.id }, data: { webhookUrl: receiver.url("/merchant") } });
  const signingKey = await db.storeSigningKey.findFirstOrThrow({ where: { storeId: store.id } });
  receiver.trust({ ...(signingKey.publicJwk as JsonWebKey), kid: signingKey.kid });
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 4200, inventory: 5 }] })).variants[0]!.id;
  key = (await seedPlatformKey(["orders:read", "purchase:complete"])).key;
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

const statusesAt = (path: string, orderId: string) =>
  receiver.received
    .filter((r) => r.path === path && r.answered === 200 && r.body.includes(orderId))
    .map((r) => {
      const order = JSON.parse(r.body) as OrderBody;
      return [order.line_items[0]?.status, order.fulfillment.events.map((e) => e.type).join(",")];
    });

describe("order lifecycle webhooks", () => {
  test("placed → paid (real card completion) → shipped (carrier, tracking) → delivered: verified snapshots at both targets, in order", async () => {
    const { orderId } = await completeCardOrder(store, {
      apiKey: key,
      profileUrl,
      signer,
      lines: [{ variantId, quantity: 2 }],
    });
    const order = { id: orderId };
    await webhookWorkerStep(new Date(), { storeId: store.id });

    await recordFulfillmentEvent(store.slug, order.id, {
      type: "shipped",
      carrier: "UPS",
      trackingNumber: "1Z999AA10123456784",
      trackingUrl: "https://www.ups.com/track?tracknum=1Z999AA10123456784",
    });
    await recordFulfillmentEvent(store.slug, order.id, { type: "delivered" });
    for (let i = 0; i < 4; i++) await webhookWorkerStep(new Date(), { storeId: store.id });

    const expected = [
      ["processing", ""],
      ["processing", ""],
      ["fulfilled", "shipped"],
      ["fulfilled", "shipped,delivered"],
    ];
    assert.deepEqual(statusesAt("/merchant", order.id), expected);
    assert.deepEqual(statusesAt("/platform", order.id), expected);
    const all = receiver.received.filter((r) => r.body.includes(order.id));
    assert.ok(
      all.every((r) => r.verified && r.digestOk),
      "every delivery verifies",
    );
    for (const r of all) assertUcpSchema("shopping/order.json", JSON.parse(r.body));

    const read = await rest<OrderBody>("GET", `/s/${store.slug}/orders/${order.id}`, {
      headers: { "x-api-key": key },
    });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.line_items[0]?.quantity, { original: 2, total: 2, fulfilled: 2 });
    const shipped = read.body.fulfillment.events[0];
    assert.deepEqual(
      [shipped?.type, shipped?.carrier, shipped?.tracking_number],
      ["shipped", "UPS", "1Z999AA10123456784"],
    );

    const feed = await rest<{ events: { type: string }[] }>("GET", `/s/${store.slug}/order-events`, {
      headers: { "x-api-key": key },
    });
    assert.deepEqual(
      feed.body.events.map((e) => e.type),
      ["order.placed", "order.paid", "order.fulfilled", "order.delivered"],
    );
    assert.equal(
      (await (await getDb()).order.findUniqueOrThrow({ where: { id: order.id } })).status,
      "delivered",
    );
  });

  test("bad fulfilment input is refused with a path and changes nothing", async () => {
    const created = await rest<{ id: string }>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: { "x-api-key": key, "idempotency-key": randomUUID() },
      body: {
        line_items: [{ item: { id: variantId }, quantity: 1 }],
        buyer: BUYER,
        shipping_address: SEED_ADDRESS,
        shipping_method_id: "standard",
      },
    });
    const db = await getDb();
    const order = await placeOrder(db, {
      checkoutId: created.body.id,
      storeId: store.id,
      handlerId: "svc.card",
      paymentRef: null,
      now: new Date(),
    });
    const line = order.lineItems[0]!.id;
    const cases: [Parameters<typeof recordFulfillmentEvent>[2], string, string][] = [
      [{ type: "Shipped!" }, "invalid_request", "$.type"],
      [
        { type: "shipped", lineItems: [{ id: line, quantity: 2 }] },
        "invalid_request",
        "$.line_items[0].quantity",
      ],
      [
        { type: "shipped", lineItems: [{ id: "oli_nope", quantity: 1 }] },
        "invalid_request",
        "$.line_items[0].id",
      ],
      [{ type: "shipped", trackingUrl: "javascript:alert(1)" }, "invalid_request", "$.tracking_url"],
      [{ type: "delivered" }, "conflict", ""],
    ];
    for (const [input, code, path] of cases) {
      await assert.rejects(recordFulfillmentEvent(store.slug, order.id, input), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, code, JSON.stringify(input));
        if (path) assert.equal(error.path, path);
        return true;
      });
    }
    const after = await db.order.findUniqueOrThrow({
      where: { id: order.id },
      include: { lineItems: true, fulfillmentEvents: true, events: true },
    });
    assert.equal(after.status, "placed");
    assert.equal(after.lineItems[0]?.quantityFulfilled, 0);
    assert.equal(after.fulfillmentEvents.length, 0);
    assert.deepEqual(
      after.events.map((e) => e.kind),
      ["order.placed"],
    );
    await assert.rejects(recordFulfillmentEvent(store.slug, "ord_nope", { type: "shipped" }), /No order/);
  });
});
