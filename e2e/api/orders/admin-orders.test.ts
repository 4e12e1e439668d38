import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { runAdminCaptured } from "../../helpers/run-admin";
import { servePlatformProfile } from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The merchant's order commands on the admin CLI (issue #7: "a merchant REST/admin-CLI operation"; there are no
// merchant API credentials yet, so the CLI is the merchant surface until the admin UI): fulfil, cancel, refund
// and settle, run through the CLI's own argument parsing in-process on both databases.

let store: Store;
let variantId: string;
let key: string;
let profileUrl: string;
let closeProfile: () => void;
let signer: PlatformSigner;

before(async () => {
  await prepareTestDatabase();
  signer = newPlatformSigner();
  const profile = await servePlatformProfile("https://platform.example/webhooks", {
    signingKeys: [signer.publicJwk],
  });
  profileUrl = profile.url;
  closeProfile = profile.close;
  store = await seedStore();
  await seedShippingRates(store, [{ code: "standard", priceMinor: 0 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 3000, inventory: 10 }] })).variants[0]!.id;
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(async () => {
  closeProfile();
  await closeTestDatabase();
});

/** Runs `admin <argv…>` and returns its exit code and what it printed. */
const admin = async (...argv: string[]) => {
  const { code, out } = await runAdminCaptured(...argv);
  return { code, out };
};

const paid = () =>
  completeCardOrder(store, { apiKey: key, profileUrl, signer, lines: [{ variantId, quantity: 1 }] });
const refundedAt = async (checkoutId: string) =>
  (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId)
    ?.amount_refunded;

describe("admin CLI: merchant order commands", () => {
  test("fulfill-order, then refund-order in two parts; the order ends refunded", async () => {
    const { orderId, checkoutId, total } = await paid();
    const shipped = await admin(
      "fulfill-order",
      "--store",
      store.slug,
      "--order",
      orderId,
      "--carrier",
      "DHL",
      "--tracking-number",
      "JD0140",
    );
    assert.equal(shipped.code, 0);
    assert.match(shipped.out, /is fulfilled; 1 fulfilment event/);
    const part = await admin("refund-order", "--store", store.slug, "--order", orderId, "--amount", "700");
    assert.equal(part.code, 0);
    assert.match(part.out, /is fulfilled; refund adj_\S+ completed, 700 USD minor units back/);
    const rest = await admin(
      "refund-order",
      "--store",
      store.slug,
      "--order",
      orderId,
      "--reason",
      "Returned",
    );
    assert.match(rest.out, new RegExp(`is refunded; refund adj_\\S+ completed, ${total - 700} USD`));
    assert.equal(await refundedAt(checkoutId), total);
  });

  test("cancel-order restocks and refunds; settle-refunds reports nothing pending", async () => {
    const { orderId, checkoutId, total } = await paid();
    const canceled = await admin(
      "cancel-order",
      "--store",
      store.slug,
      "--order",
      orderId,
      "--reason",
      "Fraud check",
    );
    assert.equal(canceled.code, 0);
    assert.match(canceled.out, /is canceled; cancellation adj_\S+ completed/);
    assert.equal(await refundedAt(checkoutId), total);
    const settled = await admin("settle-refunds", "--store", store.slug);
    assert.equal(settled.code, 0);
    assert.match(settled.out, /^0 pending refund\(s\) processed$/m);
  });

  test("bad arguments are refused before anything changes", async () => {
    const { orderId, checkoutId } = await paid();
    await assert.rejects(
      admin("refund-order", "--store", store.slug, "--order", orderId, "--amount", "12.50"),
      /--amount must be a whole number of minor units/,
    );
    await assert.rejects(admin("cancel-order", "--store", store.slug), /--store and --order are required/);
    await assert.rejects(
      admin("refund-order", "--store", store.slug, "--order", "ord_nope"),
      /No order "ord_nope"/,
    );
    assert.equal(await refundedAt(checkoutId), 0);
    const order = await (await getDb()).order.findUniqueOrThrow({ where: { id: orderId } });
    assert.equal(order.status, "paid");
  });
});
