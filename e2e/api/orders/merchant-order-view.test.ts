import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { createAccount, type AccountSummary } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { fulfilOrderAsMerchant, refundOrderAsMerchant } from "@/lib/orders/admin-orders";
import { merchantOrderView } from "@/lib/orders/merchant-order-view";
import { settlePendingRefunds } from "@/lib/orders/settle-refund";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The merchant's order page reads one read model (lib/orders/merchant-order-view.ts): an order paid by card through
// the real completion (sandbox PSP, the Visa test card) shows the buyer's name, the ship-to address and option,
// each line with its product picture, the breakdown the checkout priced (subtotal, shipping, total), the card that
// paid, and a timeline in words in true order; after a shipment and a partial refund, the fulfilment state and
// the money paid and refunded. Staff see it without the owner's actions; other accounts get not_found.

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
  store = await seedStore({ name: "Lamp Corner" });
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  const product = await seedProduct(store, {
    title: "Brass lamp",
    variants: [{ priceMinor: 2500, inventory: 100 }],
  });
  variantId = product.variants[0]!.id;
  await (
    await getDb()
  ).product.update({
    where: { id: product.id },
    data: { media: [{ type: "image", url: "https://cdn.example.com/lamp.jpg", alt_text: "A brass lamp" }] },
  });
  owner = await account("owner");
  staff = await account("staff");
  outsider = await account("outsider");
  await grantStoreRole(owner.id, store.id, "owner");
  await grantStoreRole(staff.id, store.id, "staff");
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

describe("merchantOrderView", () => {
  test("an order paid by card: buyer, ship-to, lines with pictures, breakdown, Visa •••• 4242, timeline in order", async () => {
    const { orderId, total } = await completeCardOrder(store, {
      apiKey: key,
      profileUrl,
      signer,
      lines: [{ variantId, quantity: 2 }],
    });
    const view = await merchantOrderView(owner, store.slug, orderId);

    assert.deepEqual(view.buyer, { name: "Ada Lovelace", email: "ada@example.com" });
    assert.deepEqual(view.shipTo, {
      name: "Ada Lovelace",
      lines: ["1 Market St", "San Francisco, CA 94105", "US"],
      phone: null,
    });
    assert.ok(view.shippingOption, "the shipping option the agent picked");
    assert.deepEqual(
      view.lines.map((l) => ({
        title: l.title,
        quantity: l.quantity,
        unit: l.unitMinor,
        line: l.lineMinor,
        toShip: l.toShip,
        image: l.imageUrl,
        alt: l.imageAlt,
      })),
      [
        {
          title: "Brass lamp",
          quantity: 2,
          unit: 2500,
          line: 5000,
          toShip: 2,
          image: "https://cdn.example.com/lamp.jpg",
          alt: "A brass lamp",
        },
      ],
    );
    const rows = Object.fromEntries(view.breakdown.map((r) => [r.type, r]));
    assert.equal(rows.subtotal?.amountMinor, 5000);
    assert.equal(rows.subtotal?.label, "Subtotal");
    assert.equal(rows.fulfillment?.amountMinor, 500);
    assert.equal(rows.fulfillment?.label, "Shipping");
    assert.equal(view.breakdown[0]?.type, "subtotal", "the subtotal comes first");
    assert.ok(!view.breakdown.some((r) => r.type === "total"), "the total is apart from the rows");
    assert.equal(
      view.breakdown.reduce((s, r) => s + r.amountMinor, 0),
      view.totalMinor,
      "the rows add up to the total",
    );
    assert.equal(view.totalMinor, total);
    assert.deepEqual(view.payment, { rail: "card", brand: "visa", last4: "4242" });
    // who bought it, by the name the dashboard gives it: the platform key's
    assert.equal(view.agentName, keyName);
    assert.deepEqual(view.money, {
      paidMinor: total,
      refundedMinor: 0,
      refundPendingMinor: 0,
      refundableMinor: total,
    });
    assert.deepEqual(view.fulfilment, { state: "unfulfilled", shippedUnits: 0, units: 2 });
    assert.deepEqual(view.can, { fulfil: true, refund: true, cancel: true });
    const titles = view.timeline.map((t) => t.title);
    assert.ok(titles.indexOf("Order placed") >= 0, titles.join(" | "));
    assert.ok(titles.indexOf("Order placed") < titles.indexOf("Payment captured"), titles.join(" | "));
    assert.ok(!titles.some((t) => t.startsWith("order.")), "no event names");
  });

  test("after a shipment and a partial refund: fulfilled, paid and refunded, each step in words and in order", async () => {
    const { orderId, total } = await completeCardOrder(store, {
      apiKey: key,
      profileUrl,
      signer,
      lines: [{ variantId, quantity: 2 }],
    });
    await fulfilOrderAsMerchant(owner, store.slug, orderId, { carrier: "UPS", trackingNumber: "1Z999" });
    await refundOrderAsMerchant(owner, store.slug, orderId, { amountMinor: 150, reason: "Scuffed box" });
    await settlePendingRefunds({ storeId: store.id });
    // one worker pass delivers every event of the order, its attempts sharing the pass's start time
    await webhookWorkerStep(new Date(), { storeId: store.id });
    const view = await merchantOrderView(owner, store.slug, orderId);

    assert.deepEqual(view.fulfilment, { state: "fulfilled", shippedUnits: 2, units: 2 });
    assert.equal(view.money.paidMinor, total);
    assert.equal(view.money.refundedMinor + view.money.refundPendingMinor, 150);
    assert.equal(view.money.refundableMinor, total - 150);
    assert.equal(view.can.fulfil, false, "nothing left to ship");
    assert.equal(view.can.cancel, false, "a shipped order is not canceled");
    const titles = view.timeline.map((t) => t.title);
    const at = (title: string) => titles.findIndex((t) => t.startsWith(title));
    assert.ok(at("Order placed") < at("Payment captured"), titles.join(" | "));
    assert.ok(at("Payment captured") < at("2 items shipped"), titles.join(" | "));
    assert.ok(at("2 items shipped") < at("Refund"), titles.join(" | "));
    assert.equal(view.timeline[at("2 items shipped")]?.detail, "UPS · 1Z999");
    assert.equal(view.timeline[at("Refund")]?.amountMinor, 150);
    assert.equal(titles.filter((t) => t.startsWith("Refund")).length, 1, "one refund, said once");
    for (let i = 1; i < view.timeline.length; i++) {
      assert.ok(view.timeline[i - 1]!.at <= view.timeline[i]!.at, "oldest first");
    }
    // the deliveries follow the events they carry, whatever the instant they share
    const sent = titles.filter((t) => t.endsWith("sent to the agent's platform"));
    assert.deepEqual(
      sent.map((t) => t.slice(1, t.indexOf("”"))),
      ["Order placed", "Payment captured", "Shipment recorded", "Order updated", "Refund paid back"].filter(
        (what) => sent.some((t) => t.startsWith(`“${what}”`)),
      ),
      titles.join(" | "),
    );
    assert.ok(sent.length >= 2, titles.join(" | "));
  });

  test("staff read it without refund or cancel; another account gets not_found", async () => {
    const { orderId } = await completeCardOrder(store, {
      apiKey: key,
      profileUrl,
      signer,
      lines: [{ variantId, quantity: 1 }],
    });
    const asStaff = await merchantOrderView(staff, store.slug, orderId);
    assert.deepEqual(asStaff.can, { fulfil: true, refund: false, cancel: false });
    await assert.rejects(
      merchantOrderView(outsider, store.slug, orderId),
      (e: unknown) => e instanceof AppError && e.code === "store_not_found",
    );
    await assert.rejects(
      merchantOrderView(owner, store.slug, "ord_missing"),
      (e: unknown) => e instanceof AppError && e.code === "not_found",
    );
  });
});
