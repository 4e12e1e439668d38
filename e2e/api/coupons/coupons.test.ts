import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";

import type { BridgeOptions } from "@/lib/bridge/http";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { cancelOrder } from "@/lib/orders/cancel-order";
import { placeOrder } from "@/lib/orders/place-order";
import { refundOrder } from "@/lib/orders/refund-order";
import { stripeSandbox } from "@/sandbox/stripe/server";

import {
  seedCatalogProduct,
  seedDiscountCodes,
  seedPlatformKey,
  seedShippingRates,
  seedStore,
} from "../../factories";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { linkBuyerAgent, type BuyerAgent } from "../../helpers/crypto-purchase";
import { runAdminCaptured } from "../../helpers/run-admin";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { connectBridge, resultJson, serviceFetch, TEST_BASE_URL, toolError } from "../bridge/helpers";

// Service coupons (DECISIONS B16) end to end: the operator issues a coupon from the admin CLI to a buyer; the
// buyer's agent opts in through the bridge (confirm_purchase apply_coupon, the buyer's bearer on /account/mcp);
// the card is charged the total minus the coupon, the order keeps its total and says who funded what, and one
// payable to the merchant is written with the order. Invariants checked against the PSP fake and the database:
// rail receipts + payable = order total; one redemption per coupon and per order under races; refunds never
// exceed what the rail received; refused coupons change nothing.

let cimd: CimdServer;
let profile: AgentProfileServer;
let store: Store;
let variantId = "";
let apiKey = "";
let buyer: BuyerAgent;
let other: BuyerAgent;
let client: Client;

const options = (): BridgeOptions => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: profile.profileUrl,
  key: profile.key,
  fetch: serviceFetch(),
  retry: { baseDelayMs: 1, sleep: async () => {} },
});

const wallet = () => {
  const kp = Ed25519Keypair.generate();
  return { kp, address: kp.toSuiAddress() };
};

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  profile = await startAgentProfileServer();
  store = await seedStore({ taxRateBps: 1000 });
  const product = await seedCatalogProduct(store, {
    title: "Coupon Field Kettle",
    variants: [{ priceMinor: 2450, inventory: 100 }],
  });
  variantId = (await (await getDb()).variant.findFirstOrThrow({ where: { productId: product.id } })).id;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  await seedDiscountCodes(store, [{ code: "MERCHANT30", kind: "fixed_amount", value: 3000 }]);
  apiKey = (await seedPlatformKey(["purchase:complete", "orders:read"])).key;
  buyer = await linkBuyerAgent(cimd, wallet());
  other = await linkBuyerAgent(cimd, wallet());
  client = await connectBridge(options(), { "x-api-key": apiKey, authorization: buyer.bearer });
});
after(async () => {
  await client.close();
  await profile.close();
  await cimd.close();
  await closeTestDatabase();
});

const call = async (name: string, args: Record<string, unknown>, c: Client = client) =>
  c.callTool({ name, arguments: args });

/** 2 × 24.50 + 5.00 shipping + 10 % tax = 59.40 USD. */
const readyCheckout = async (quantity = 2) => {
  const created = resultJson(
    await call("create_checkout", {
      store_slug: store.slug,
      items: [{ id: variantId, quantity }],
      buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
      shipping_address: {
        street_address: "1 Market St",
        address_locality: "San Francisco",
        address_region: "CA",
        postal_code: "94105",
        address_country: "US",
      },
    }),
  ) as { id: string };
  const ready = resultJson(
    await call("update_checkout", { store_slug: store.slug, id: created.id, shipping_method_id: "standard" }),
  ) as { id: string; status: string };
  assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready));
  return ready.id;
};

const future = () => new Date(Date.now() + 86_400_000).toISOString();

/** Issues a coupon through the admin CLI; returns each buyer's grant id. */
const issue = async (amount: number, to: BuyerAgent[], currency = "USD") => {
  const { code, out } = await runAdminCaptured(
    "issue-coupon",
    "--amount",
    String(amount),
    "--currency",
    currency,
    "--expires",
    future(),
    "--to",
    to.map((b) => b.wallet.address).join(","),
    "--json",
  );
  assert.equal(code, 0, out);
  const issued = JSON.parse(out) as { coupon_id: string; grants: { id: string; buyer_address: string }[] };
  return to.map((b) => issued.grants.find((g) => g.buyer_address === b.wallet.address.toLowerCase())!.id);
};

const charges = async (checkoutId: string) =>
  (await stripeSandbox())
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === checkoutId && pi.status === "succeeded");

const confirm = (checkoutId: string, extra: Record<string, unknown> = {}, c: Client = client) =>
  call(
    "confirm_purchase",
    {
      checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
      payment_method: "card",
      pay_with: "pm_card_visa",
      ...extra,
    },
    c,
  );

describe("service coupons", () => {
  test("admin CLI: --help for each coupon command; issue refuses an unknown buyer and a past expiry", async () => {
    for (const command of ["issue-coupon", "list-coupons", "coupon-payables"]) {
      const help = await runAdminCaptured(command, "--help");
      assert.equal(help.code, 0);
      assert.match(help.out, new RegExp(`Usage: npm run admin -- ${command}`));
    }
    await assert.rejects(
      runAdminCaptured(
        "issue-coupon",
        "--amount",
        "500",
        "--currency",
        "USD",
        "--expires",
        future(),
        "--to",
        `0x${"ab".repeat(32)}`,
      ),
      /No buyer account/,
    );
    await assert.rejects(
      runAdminCaptured(
        "issue-coupon",
        "--amount",
        "500",
        "--currency",
        "USD",
        "--expires",
        "2001-01-01",
        "--to",
        buyer.wallet.address,
      ),
      /expires_at must be in the future/,
    );
    await assert.rejects(
      runAdminCaptured(
        "issue-coupon",
        "--amount",
        "5.00",
        "--currency",
        "USD",
        "--expires",
        future(),
        "--to",
        buyer.wallet.address,
      ),
      /whole number of minor units/,
    );
  });

  test("card through the bridge: charged total − coupon, order total unchanged with who funded what, one payable; refunds capped at the rail", async () => {
    const [grant] = await issue(700, [buyer]);
    const listed = resultJson(await call("list_my_coupons", {})) as {
      coupons: { id: string; status: string; amount: number }[];
    };
    assert.deepEqual(listed.coupons.find((c) => c.id === grant)?.status, "available", JSON.stringify(listed));

    const checkoutId = await readyCheckout();
    const confirmed = resultJson(await confirm(checkoutId, { apply_coupon: true })) as {
      status: string;
      results: {
        status: string;
        order?: { id: string };
        total?: { amount: number };
        coupon?: { id: string; amount: number; formatted: string };
        amount_due?: { amount: number; formatted: string };
      }[];
    };
    assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
    const result = confirmed.results[0]!;
    assert.equal(result.total?.amount, 5940);
    assert.deepEqual(
      [result.coupon?.id, result.coupon?.amount, result.coupon?.formatted],
      [grant, 700, "$7.00"],
    );
    assert.deepEqual([result.amount_due?.amount, result.amount_due?.formatted], [5240, "$52.40"]);

    // the rail received total − coupon, once
    const paid = await charges(checkoutId);
    assert.deepEqual(
      paid.map((pi) => pi.amount),
      [5240],
    );
    const orderId = result.order!.id;
    const order = resultJson(await call("get_order", { store_slug: store.slug, id: orderId })) as {
      totals: { type: string; amount: number }[];
      funding?: { source: string; funded_by: string; amount: number }[];
    };
    assert.equal(order.totals.find((t) => t.type === "total")?.amount, 5940);
    assert.deepEqual(order.funding, [
      { source: "svc.card", funded_by: "buyer", amount: 5240, formatted: "$52.40" },
      { source: "service_coupon", funded_by: "service", amount: 700, formatted: "$7.00" },
    ]);
    const db = await getDb();
    const payables = await db.couponPayable.findMany({ where: { orderId } });
    assert.equal(payables.length, 1);
    assert.deepEqual(
      [payables[0]!.amountMinor, payables[0]!.storeId, payables[0]!.status, payables[0]!.grantId],
      [700, store.id, "open", grant],
    );
    // the merchant's invariant: rail receipts + payable = order total
    assert.equal(paid[0]!.amount + payables[0]!.amountMinor, 5940);

    const after = resultJson(await call("list_my_coupons", {})) as {
      coupons: { id: string; status: string }[];
    };
    assert.equal(after.coupons.find((c) => c.id === grant)?.status, "redeemed");
    const cli = await runAdminCaptured("coupon-payables", "--store", store.slug, "--json");
    assert.equal(
      (JSON.parse(cli.out) as { order_id: string; amount_minor: number }[]).find(
        (p) => p.order_id === orderId,
      )?.amount_minor,
      700,
    );
    const coupons = await runAdminCaptured("list-coupons", "--json");
    assert.ok(
      (JSON.parse(coupons.out) as { redeemed: number; amount_minor: number }[]).some(
        (c) => c.amount_minor === 700 && c.redeemed === 1,
      ),
    );

    // a redeemed coupon cannot be used again
    const next = await readyCheckout();
    const again = resultJson(await confirm(next, { apply_coupon: grant })) as {
      status: string;
      results: { error?: { code: string; path?: string } }[];
    };
    assert.equal(again.status, "failed");
    assert.deepEqual(
      [again.results[0]?.error?.code, again.results[0]?.error?.path],
      ["coupon_used", "$.apply_coupon"],
    );
    assert.equal((await charges(next)).length, 0, "a refused coupon charges nothing");

    // refunds: never more than the rail received (5240), even though the order total is 5940
    await assert.rejects(
      refundOrder(store.slug, orderId, { amount: 5241 }),
      /exceeds what can still be refunded \(5240/,
    );
    const refunded = await refundOrder(store.slug, orderId);
    assert.equal(refunded.adjustments?.at(-1)?.refundMinor, 5240);
    const pi = (await stripeSandbox()).paymentIntents().find((p) => p.id === paid[0]!.id)!;
    assert.equal(pi.amount_refunded, 5240);
  });

  test("race: two checkouts apply one single-use coupon at once → one holds it; two completions of that checkout → one order, one charge, one payable; a cancellation voids it", async () => {
    const [grant] = await issue(1000, [buyer]);
    const [a, b] = [await readyCheckout(), await readyCheckout()];
    const applied = await Promise.all(
      [a, b].map((id) =>
        call("apply_coupon_to_checkout", { store_slug: store.slug, checkout_id: id, coupon_id: grant }),
      ),
    );
    const ok = applied.filter((r) => !(r as { isError?: boolean }).isError);
    assert.equal(ok.length, 1, JSON.stringify(applied));
    assert.equal(toolError(applied.find((r) => (r as { isError?: boolean }).isError)).code, "coupon_used");
    const db = await getDb();
    const holders = await db.checkoutSession.findMany({ where: { couponGrantId: grant } });
    assert.equal(holders.length, 1);
    const winner = holders[0]!.id;

    const both = await Promise.all([confirm(winner), confirm(winner)]);
    // each racer completes, or (on a loaded machine) is told the checkout kept changing and to retry; the retry
    // finds the order. Whatever the interleaving: one order, one charge of total − coupon, one payable.
    for (const r of both) {
      const answer = resultJson(r) as { status: string; results: { error?: { code: string } }[] };
      if (answer.status !== "completed")
        assert.equal(answer.results[0]?.error?.code, "conflict", JSON.stringify(answer));
    }
    assert.equal((resultJson(await confirm(winner)) as { status: string }).status, "completed");
    const paid = await charges(winner);
    assert.deepEqual(
      paid.map((pi) => pi.amount),
      [4940],
    );
    const orders = await db.order.findMany({ where: { checkoutId: winner } });
    assert.equal(orders.length, 1);
    assert.equal(orders[0]!.serviceCouponMinor, 1000);
    assert.equal(await db.couponPayable.count({ where: { grantId: grant } }), 1);
    // canceled before shipping: the buyer gets back what the rail took (4940, not the 5940 total) and the payable
    // is void — the service owes the merchant nothing for an order that was not delivered
    const canceled = await cancelOrder(store.slug, orders[0]!.id);
    assert.equal(canceled.adjustments?.at(-1)?.refundMinor, 4940);
    assert.equal(
      (await stripeSandbox()).paymentIntents().find((p) => p.id === paid[0]!.id)?.amount_refunded,
      4940,
    );
    assert.equal((await db.couponPayable.findUniqueOrThrow({ where: { grantId: grant! } })).status, "void");
    // the loser pays full price without a coupon
    const loser = winner === a ? b : a;
    const full = resultJson(await confirm(loser)) as { status: string };
    assert.equal(full.status, "completed");
    assert.deepEqual(
      (await charges(loser)).map((pi) => pi.amount),
      [5940],
    );
  });

  test("bad input changes nothing: unknown, another buyer's, expired, other currency, not less than the total, no bearer, crypto", async () => {
    const [mine] = await issue(500, [buyer]);
    const [theirs] = await issue(500, [other]);
    const [euro] = await issue(500, [buyer], "EUR");
    const [big] = await issue(6000, [buyer]);
    const [old] = await issue(500, [buyer]);
    const db = await getDb();
    await db.serviceCoupon.updateMany({
      where: { grants: { some: { id: old } } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const checkoutId = await readyCheckout();
    const apply = async (coupon_id: string) =>
      toolError(
        await call("apply_coupon_to_checkout", {
          store_slug: store.slug,
          checkout_id: checkoutId,
          coupon_id,
        }),
      );
    for (const [coupon, code] of [
      ["cgr_unknown", "not_found"],
      [theirs!, "not_found"],
      [old!, "coupon_expired"],
      [euro!, "coupon_currency_mismatch"],
      [big!, "coupon_exceeds_total"],
    ] as const) {
      const error = await apply(coupon);
      assert.deepEqual([error.code, error.path], [code, "$.coupon_id"], coupon);
    }
    const untouched = await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
    assert.equal(untouched.couponGrantId, null);
    assert.equal(untouched.boundPrincipalId, null, "a refused coupon does not even bind the checkout");
    assert.equal(
      await db.couponGrant.count({
        where: { redeemedAt: { not: null }, id: { in: [mine!, theirs!, euro!, big!, old!] } },
      }),
      0,
    );

    // the bridge refuses before calling anything: no bearer; a crypto rail; an id for several checkouts
    const keyOnly = await connectBridge(options(), { "x-api-key": apiKey });
    try {
      const noBearer = toolError(await confirm(checkoutId, { apply_coupon: true }, keyOnly));
      assert.deepEqual([noBearer.code, noBearer.path], ["identity_required", "$.apply_coupon"]);
    } finally {
      await keyOnly.close();
    }
    const crypto = toolError(
      await call("confirm_purchase", {
        checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
        payment_method: "crypto",
        transaction_digest: "x",
        apply_coupon: true,
      }),
    );
    assert.deepEqual([crypto.code, crypto.path], ["invalid_request", "$.apply_coupon"]);
    // a crypto quote in a card-only store fails after the coupon went on: the bridge takes it off again
    const quote = toolError(
      await call("quote_purchase", {
        checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
        buyer_address: buyer.wallet.address,
        apply_coupon: mine,
      }),
    );
    assert.equal(quote.code, "rail_not_available", JSON.stringify(quote));
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } })).couponGrantId,
      null,
    );
    assert.equal((await charges(checkoutId)).length, 0);

    // the total shrinks below an applied coupon: the completion refuses before any charge
    const [fifty] = await issue(3000, [buyer]);
    await call("apply_coupon_to_checkout", {
      store_slug: store.slug,
      checkout_id: checkoutId,
      coupon_id: fifty,
    });
    // (a merchant discount code, separate from the coupon, brings the total under the coupon)
    const smaller = resultJson(
      await call("update_checkout", {
        store_slug: store.slug,
        id: checkoutId,
        discounts: { codes: ["MERCHANT30"] },
      }),
    ) as { totals: { type: string; amount: number }[] };
    const shrunk = smaller.totals.find((t) => t.type === "total")?.amount ?? 0;
    assert.ok(shrunk > 0 && shrunk <= 3000, JSON.stringify(smaller.totals));
    const refused = resultJson(await confirm(checkoutId)) as {
      status: string;
      results: { error?: { code: string } }[];
    };
    assert.equal(refused.status, "failed");
    assert.equal(refused.results[0]?.error?.code, "coupon_exceeds_total");
    assert.equal((await charges(checkoutId)).length, 0);
    assert.equal(await db.order.count({ where: { checkoutId } }), 0);
    // taking it off (null) lets the checkout complete at full price; the coupon is available again
    const off = resultJson(
      await call("apply_coupon_to_checkout", {
        store_slug: store.slug,
        checkout_id: checkoutId,
        coupon_id: null,
      }),
    ) as { amount_due: number; coupon: unknown };
    assert.deepEqual([off.amount_due, off.coupon], [shrunk, null]);
    assert.equal((resultJson(await confirm(checkoutId)) as { status: string }).status, "completed");
    assert.deepEqual(
      (await charges(checkoutId)).map((pi) => pi.amount),
      [shrunk],
    );
  });

  test("a crypto order leaves the applied coupon with the buyer: no redemption, no payable", async () => {
    const [grant] = await issue(400, [buyer]);
    const checkoutId = await readyCheckout();
    const applied = resultJson(
      await call("apply_coupon_to_checkout", {
        store_slug: store.slug,
        checkout_id: checkoutId,
        coupon_id: grant,
      }),
    ) as { amount_due: number };
    assert.equal(applied.amount_due, 5540);
    const order = await placeOrder(await getDb(), {
      checkoutId,
      storeId: store.id,
      handlerId: "svc.crypto",
      paymentRef: `digest-${checkoutId}`,
      now: new Date(),
      // placed directly, as the buyer's own approved payment: the allowance's gate (the finisher) is not the point
      spendApproved: true,
    });
    const db = await getDb();
    assert.equal(order.serviceCouponMinor, 0);
    assert.equal(await db.couponPayable.count({ where: { orderId: order.id } }), 0);
    assert.equal((await db.couponGrant.findUniqueOrThrow({ where: { id: grant! } })).redeemedAt, null);
    assert.equal(
      (await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } })).couponGrantId,
      null,
    );
    const listed = resultJson(await call("list_my_coupons", {})) as {
      coupons: { id: string; status: string }[];
    };
    assert.equal(listed.coupons.find((c) => c.id === grant)?.status, "available");
  });
});
