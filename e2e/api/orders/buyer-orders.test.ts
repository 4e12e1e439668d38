import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";
import { listBuyerOrders, listBuyerOrdersPage, listBuyerOrderStores } from "@/lib/orders/list-buyer-orders";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { refundOrder } from "@/lib/orders/refund-order";

import { seedAllowance, seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { linkAgent } from "../../helpers/oauth";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { servePlatformProfile } from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "../checkout/helpers";

// The buyer's orders page data (/account/orders, lib/orders/list-buyer-orders.ts): an agent linked by the buyer
// buys by card with the buyer's bearer in two stores; the page lists those orders — newest first, with items,
// totals, the card payment, money refunded and still owed back, and the timeline — filters them by store and
// status, and never shows another buyer's or a platform's orders.

let cimd: CimdServer;
let signer: PlatformSigner;
let profileUrl = "";
let closeProfile: () => void;
let stores: Store[];
const variants: string[] = [];

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(cimd.url("/hooks"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  stores = [await seedStore({ name: "Alder Books" }), await seedStore({ name: "Birch Tools" })];
  for (const store of stores) {
    await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
    variants.push(
      (await seedProduct(store, { title: "Lamp", variants: [{ priceMinor: 2500, inventory: 50 }] }))
        .variants[0]!.id,
    );
  }
});
after(async () => {
  closeProfile();
  await cimd.close();
  await closeTestDatabase();
});

const bearerOfNewBuyer = async (path: string) => {
  const redirectUri = cimd.url(`${path}/callback`);
  const clientId = cimd.document(path, {
    client_name: "Orders page agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code"],
    token_endpoint_auth_method: "none",
  });
  const linked = await linkAgent({ clientId, redirectUri, scope: "purchase:complete" });
  // the buyer gave the agent an allowance (an agent pays for a buyer only within one)
  await seedAllowance({ buyerId: linked.buyerId, clientId });
  return { buyerId: linked.buyerId, authorization: `Bearer ${linked.tokens.access_token}` };
};

/** The agent checks out with the buyer's bearer and pays by card (sandbox test card). */
const buy = async (i: number, authorization: string, quantity = 1) => {
  const store = stores[i]!;
  const headers = () => ({
    authorization,
    "ucp-agent": `profile="${profileUrl}"`,
    "idempotency-key": randomUUID(),
  });
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: variants[i] }, quantity }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  const done = await rest<Checkout & { order?: { id: string } }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${created.body.id}/complete`,
    { headers: headers(), body: await cardCompletionBody(created.body, store.slug, signer, "pm_card_visa") },
  );
  assert.equal(done.body.status, "completed", done.text);
  return { orderId: done.body.order!.id, total: done.body.totals.find((t) => t.type === "total")!.amount };
};

describe("listBuyerOrders — the data of /account/orders", () => {
  test("the buyer's orders across stores: items, totals, card payment, refunded and owed back, timeline; filters; nobody else's", async () => {
    const ada = await bearerOfNewBuyer("/ada-agent");
    const bob = await bearerOfNewBuyer("/bob-agent");
    const first = await buy(0, ada.authorization, 2);
    const second = await buy(1, ada.authorization);
    const bobs = await buy(0, bob.authorization);
    const key = (await seedPlatformKey(["purchase:complete"])).key;
    await completeCardOrder(stores[1]!, {
      apiKey: key,
      profileUrl,
      signer,
      lines: [{ variantId: variants[1]!, quantity: 1 }],
    });

    await recordFulfillmentEvent(stores[0]!.slug, first.orderId, {
      type: "shipped",
      carrier: "UPS",
      trackingNumber: "1Z999",
    });
    // a partial refund paid back, then one the provider cannot take yet: owed back, pending
    await refundOrder(stores[1]!.slug, second.orderId, { amount: 1000 });
    const saved = process.env.STRIPE_SANDBOX_URL;
    process.env.STRIPE_SANDBOX_URL = "http://127.0.0.1:9"; // nothing listens: the provider is unreachable
    try {
      await assert.rejects(refundOrder(stores[1]!.slug, second.orderId, { amount: 500 }));
    } finally {
      if (saved === undefined) delete process.env.STRIPE_SANDBOX_URL;
      else process.env.STRIPE_SANDBOX_URL = saved;
    }

    const orders = await listBuyerOrders(ada.buyerId);
    assert.deepEqual(
      orders.map((o) => [o.id, o.store.name]),
      [
        [second.orderId, "Birch Tools"],
        [first.orderId, "Alder Books"],
      ],
    );
    const [b, a] = orders as [(typeof orders)[0], (typeof orders)[0]];
    assert.deepEqual(
      a.lines.map((l) => [l.title, l.quantity, l.amountMinor, l.fulfilled]),
      [["Lamp", 2, 5000, 2]],
    );
    assert.equal(a.totalMinor, first.total);
    assert.equal(a.payment.rail, "card");
    assert.match(a.payment.reference ?? "", /^pi_/);
    assert.equal(a.payment.paidMinor, first.total);
    // the card's brand and last four from the provider (the sandbox's pm_card_visa is Stripe's 4242 Visa)
    assert.deepEqual(a.payment.card, { brand: "visa", last4: "4242" });
    assert.deepEqual(a.refunds, []);
    const titles = a.timeline.map((e) => e.title);
    assert.equal(titles[0], "Order placed");
    assert.ok(titles.includes("Shipped"));
    assert.ok(
      a.timeline.some((e) => e.detail === "UPS · 1Z999"),
      JSON.stringify(a.timeline),
    );
    const times = a.timeline.map((e) => e.at.getTime());
    assert.deepEqual(
      times,
      [...times].sort((x, y) => x - y),
      "oldest first",
    );

    assert.deepEqual(
      b.refunds.map((r) => [r.amountMinor, r.status]),
      [
        [1000, "completed"],
        [500, "pending"],
      ],
    );
    assert.equal(b.refundedMinor, 1000);
    assert.equal(b.owedMinor, 500);

    // filters: by store, by status; an unknown store shows nothing, a value that is not a status is ignored
    assert.deepEqual(
      (await listBuyerOrders(ada.buyerId, { store: stores[0]!.slug })).map((o) => o.id),
      [first.orderId],
    );
    assert.deepEqual(
      (await listBuyerOrders(ada.buyerId, { status: a.status })).map((o) => o.id).includes(first.orderId),
      true,
    );
    assert.deepEqual(await listBuyerOrders(ada.buyerId, { status: "canceled" }), []);
    assert.deepEqual(await listBuyerOrders(ada.buyerId, { store: "no-such-store" }), []);
    assert.equal((await listBuyerOrders(ada.buyerId, { status: "bogus" })).length, 2);
    assert.deepEqual(
      (await listBuyerOrderStores(ada.buyerId)).map((s) => s.name),
      ["Alder Books", "Birch Tools"],
    );

    // another buyer sees only their own; the platform's order is nobody's on this page
    assert.deepEqual(
      (await listBuyerOrders(bob.buyerId)).map((o) => o.id),
      [bobs.orderId],
    );
    assert.deepEqual(
      (await listBuyerOrderStores(bob.buyerId)).map((s) => s.name),
      ["Alder Books"],
    );
  });

  test("pages of older orders: each order once, newest first, the filters kept; a cursor that is not ours shows the first page", async () => {
    const cy = await bearerOfNewBuyer("/cy-agent");
    const bought: string[] = [];
    for (let i = 0; i < 5; i++) bought.push((await buy(i % 2, cy.authorization)).orderId);
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await listBuyerOrdersPage(cy.buyerId, {}, { before, pageSize: 2 });
      assert.equal(page.invalidCursor, false);
      assert.ok(page.orders.length <= 2);
      seen.push(...page.orders.map((o) => o.id));
      before = page.older ?? undefined;
      pages += 1;
    } while (before && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...bought].reverse(), "every order once, newest first");
    const alder = await listBuyerOrdersPage(cy.buyerId, { store: stores[0]!.slug }, { pageSize: 2 });
    const olderAlder = await listBuyerOrdersPage(
      cy.buyerId,
      { store: stores[0]!.slug },
      { before: alder.older!, pageSize: 2 },
    );
    assert.deepEqual(
      [...alder.orders, ...olderAlder.orders].map((o) => o.id),
      [bought[4], bought[2], bought[0]],
      "the store filter holds across pages",
    );
    assert.equal(olderAlder.older, null, "the last page");
    for (const forged of ["not-a-cursor!", Buffer.from("123.chk_x").toString("base64url"), "%FF"]) {
      const page = await listBuyerOrdersPage(cy.buyerId, {}, { before: forged, pageSize: 2 });
      assert.equal(page.invalidCursor, true, forged);
      assert.deepEqual(
        page.orders.map((o) => o.id),
        [bought[4], bought[3]],
      );
    }
  });
});
