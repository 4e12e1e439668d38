import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { JWK } from "jose";

import { getPaymentPage } from "@/lib/checkout/hosted-payment";
import { getPaymentReceipt, getReceiptOfPaidLink, sealReceipt } from "@/lib/checkout/payment-receipt";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, totalOf, type Checkout } from "./helpers";

// The hosted payment page before and after paying: the breakdown of the total it shows before, and the receipt
// after. The payment link dies with the payment, so the page's form route hands the page a sealed receipt
// reference (checkout id + HMAC bound to the store): it opens that order's receipt and nothing else.

let store: Store;
let other: Store;
let key: string;
let signedProfile: string;
let signer: { kid: string; privateJwk: JWK };
let sock: { id: string };

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  signer = profiles.agentKey as never;
  store = await seedStore({ name: "Receipt Goods" });
  other = await seedStore();
  sock = (await seedProduct(store, { title: "Sock", variants: [{ priceMinor: 1200, inventory: 100 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 300 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(closeTestDatabase);

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

/** A checkout the agent completed without a card token: requires_escalation with the hosted link. */
const escalated = async () => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: sock.id }, quantity: 2 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  const done = await rest<Checkout & { continue_url?: string }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${created.body.id}/complete`,
    { headers: headers(), body: await cardCompletionBody(created.body, store.slug, signer) },
  );
  assert.equal(done.body.status, "requires_escalation", done.text);
  return { checkout: created.body, url: done.body.continue_url! };
};

const submit = async (continueUrl: string, form: Record<string, string>) => {
  const response = await callApp("POST", `${new URL(continueUrl).pathname}/submit`, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    rawBody: new URLSearchParams(form).toString(),
  });
  assert.equal(response.status, 303);
  return new URL(response.headers.get("location") ?? "").searchParams;
};

describe("hosted payment page: breakdown before, receipt after", () => {
  test("GET /s/:slug/pay/:token — the page breaks the total down as charged; after paying, the sealed receipt opens the order", async () => {
    const { checkout, url } = await escalated();
    const token = url.slice(url.lastIndexOf("/") + 1);
    const page = await getPaymentPage(store.slug, token);
    assert.ok(page);
    assert.deepEqual(
      page.breakdown.map((t) => [t.type, t.amount]),
      checkout.totals.filter((t) => t.type !== "total").map((t) => [t.type, t.amount]),
    );
    assert.equal(
      page.breakdown.reduce((sum, t) => sum + t.amount, 0),
      page.totalMinor,
      "the parts add up to what is charged",
    );
    // above the total: where it ships and how, and who gets the receipt
    assert.deepEqual(page.details.shipTo, {
      name: "Ada Lovelace",
      lines: ["1 Market St", "San Francisco, CA 94105"],
      country: "US",
    });
    assert.equal(page.details.email, "ada@example.com");
    assert.ok(page.details.shippingOption, "the chosen shipping option is named");

    const paid = await submit(url, { action: "card", payment_method: "pm_card_visa" });
    assert.equal(paid.get("result"), "paid");
    const sealed = paid.get("receipt");
    assert.ok(sealed, "the paid redirect carries a receipt reference");
    const order = await rest<Checkout & { order?: { id: string } }>(
      "GET",
      `/s/${store.slug}/checkout-sessions/${checkout.id}`,
      { headers: { "x-api-key": key } },
    );
    const receipt = await getPaymentReceipt(store.slug, sealed);
    assert.ok(receipt);
    assert.equal(receipt.orderId, order.body.order?.id);
    assert.equal(receipt.storeName, "Receipt Goods");
    assert.deepEqual(receipt.lines, [{ title: "Sock", quantity: 2, amountMinor: 2400 }]);
    assert.equal(receipt.totalMinor, totalOf(checkout, "total"));
    assert.equal(receipt.rail, "card");
    assert.match(receipt.reference ?? "", /^pi_/);
    // how it was paid, as the receipt says it: the card the paying attempt recorded, not the PaymentIntent
    assert.deepEqual(receipt.paidWith, { kind: "card", brand: "visa", last4: "4242" });
    assert.equal(receipt.details.email, "ada@example.com");
    assert.equal(receipt.details.shipTo?.lines[0], "1 Market St");

    // the link no longer pays: a second post charges nothing and is sent to the bare link, which shows the receipt
    const again = await submit(url, { action: "card", payment_method: "pm_card_visa" });
    assert.equal(again.get("result"), null);
    assert.equal(again.get("receipt"), null);
    assert.equal(
      await (await getDb()).paymentAttempt.count({ where: { checkoutId: checkout.id, state: "succeeded" } }),
      1,
    );
  });

  test("a receipt reference opens nothing once edited, in another store, or before its order exists", async () => {
    const { checkout, url } = await escalated();
    // sealed by the server, but nothing is paid yet: no order, no receipt
    const early = await sealReceipt(store.slug, checkout.id);
    assert.equal(await getPaymentReceipt(store.slug, early), null);
    const paid = await submit(url, { action: "card", payment_method: "pm_card_visa" });
    const sealed = paid.get("receipt")!;
    assert.ok(await getPaymentReceipt(store.slug, sealed));
    assert.equal(sealed, early, "one reference per checkout and store");
    const [id, mac] = sealed.split(".") as [string, string];
    const flipped = `${id}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`;
    for (const bad of [flipped, `${id}.`, id, `x${sealed}`, "", "..", `${id}.${"A".repeat(43)}`]) {
      assert.equal(await getPaymentReceipt(store.slug, bad), null, bad);
    }
    assert.equal(await getPaymentReceipt(other.slug, sealed), null, "bound to its store");
    assert.equal(await getPaymentReceipt(other.slug, await sealReceipt(other.slug, checkout.id)), null);
  });

  test("GET /s/:slug/pay/:token opened again after paying — the bare link finds its receipt by the token's hash, nothing else does", async () => {
    const { checkout, url } = await escalated();
    const token = url.slice(url.lastIndexOf("/") + 1);
    assert.equal(await getReceiptOfPaidLink(store.slug, token), null, "no receipt before the order");
    const paid = await submit(url, { action: "card", payment_method: "pm_card_visa" });
    assert.equal(paid.get("result"), "paid");
    assert.equal(await getPaymentPage(store.slug, token), null, "the link no longer pays");

    const reopened = await getReceiptOfPaidLink(store.slug, token);
    assert.ok(reopened, "the paid link shows its receipt");
    assert.deepEqual(reopened, await getPaymentReceipt(store.slug, paid.get("receipt")!));
    assert.equal(reopened.storeName, "Receipt Goods");
    assert.equal(reopened.totalMinor, totalOf(checkout, "total"));
    assert.deepEqual(reopened.paidWith, { kind: "card", brand: "visa", last4: "4242" });

    // the checkout keeps a hash of the link, never the live token
    const row = await (
      await getDb()
    ).checkoutSession.findUniqueOrThrow({
      where: { id: checkout.id },
      select: { continueToken: true, paidLinkHash: true },
    });
    assert.equal(row.continueToken, null);
    assert.match(row.paidLinkHash ?? "", /^[0-9a-f]{64}$/);
    assert.notEqual(row.paidLinkHash, token);
    // the hash itself, another store, an edited token, a malformed one: nothing
    assert.equal(await getReceiptOfPaidLink(store.slug, row.paidLinkHash!), null);
    assert.equal(await getReceiptOfPaidLink(other.slug, token), null, "bound to its store");
    const edited = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const bad of [edited, "", "short", `${token}/x`]) {
      assert.equal(await getReceiptOfPaidLink(store.slug, bad), null, bad);
    }
  });

  test("POST /s/:slug/pay/:token/submit twice at once (a double click on Pay) — one charge, one order, both answers lead to the receipt", async () => {
    const sandbox = await stripeSandbox();
    for (let run = 0; run < 4; run++) {
      const { checkout, url } = await escalated();
      const token = url.slice(url.lastIndexOf("/") + 1);
      const post = () =>
        callApp("POST", `${new URL(url).pathname}/submit`, {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          rawBody: new URLSearchParams({ action: "card", payment_method: "pm_card_visa" }).toString(),
        });
      const answers = await Promise.all([post(), post()]);
      for (const answer of answers) {
        assert.equal(answer.status, 303);
        const location = new URL(answer.headers.get("location") ?? "");
        // either the paid redirect with its sealed receipt, or the bare link (which shows the receipt)
        const result = location.searchParams.get("result");
        assert.ok(result === "paid" || result === null, `run ${run}: ${location.search}`);
        assert.equal(location.pathname, new URL(url).pathname);
      }
      const db = await getDb();
      assert.equal(await db.order.count({ where: { checkoutId: checkout.id } }), 1);
      const intents = sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === checkout.id);
      const charged = intents
        .filter((pi) => pi.status === "succeeded")
        .reduce((sum, pi) => sum + pi.amount - pi.amount_refunded, 0);
      assert.equal(charged, totalOf(checkout, "total"), `run ${run}: charged once, the order's total`);
      assert.ok(await getReceiptOfPaidLink(store.slug, token), "the bare link shows the receipt");
    }
  });
});
