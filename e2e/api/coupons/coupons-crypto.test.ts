import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";
import { normalizeStructTag } from "@mysten/sui/utils";

import type { BridgeOptions } from "@/lib/bridge/http";
import { getDb } from "@/lib/config/db";
import { saveIntentMandate } from "@/lib/mandates/intent-mandates";

import { seedPlatformKey } from "../../factories";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import {
  linkBuyerAgent,
  newWallet,
  sandboxUrl,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  USDC_UNIT,
} from "../../helpers/crypto-purchase";
import { runAdminCaptured } from "../../helpers/run-admin";
import { balances } from "../../helpers/sui-sandbox";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { connectBridge, resultJson, serviceFetch, TEST_BASE_URL, toolError } from "../bridge/helpers";

// A service coupon on a crypto purchase through the bridge (DECISIONS B16): quote_purchase apply_coupon puts the
// buyer's coupon on the checkout before the prepare, so the transaction the buyer signs pays the total minus the
// coupon; confirm_purchase completes it; the order keeps its total, says who funded what, and one payable covers
// the rest. Checked against the sandbox chain: the merchant received exactly the discounted legs, and rail receipts
// + payable = order total.

let cimd: CimdServer;
let profile: AgentProfileServer;
let apiKey = "";

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  profile = await startAgentProfileServer();
  apiKey = (await seedPlatformKey(["purchase:complete", "orders:read"])).key;
});
after(async () => {
  await profile.close();
  await cimd.close();
  await closeTestDatabase();
});

const options = (): BridgeOptions => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: profile.profileUrl,
  key: profile.key,
  fetch: serviceFetch(),
  retry: { baseDelayMs: 1, sleep: async () => {} },
});

type Money = { amount: number; currency: string; formatted: string };

test("crypto: quote_purchase apply_coupon → the buyer signs total − coupon → confirm → order with funding, one payable; the merchant got the discounted legs", async () => {
  const { store, payout, variantId } = await seedCryptoStore({ coins: ["USDC"] });
  const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
  const envelope = await signAllowance(agent.wallet, agent.clientId);
  const allowance = await saveIntentMandate({
    buyerId: agent.buyerId,
    buyerAddress: agent.wallet.address,
    clientId: agent.clientId,
    envelope,
    now: new Date(),
  });
  const issued = await runAdminCaptured(
    "issue-coupon",
    "--amount",
    "1000",
    "--currency",
    "USD",
    "--expires",
    new Date(Date.now() + 86_400_000).toISOString(),
    "--to",
    agent.wallet.address,
    "--json",
  );
  const grant = (JSON.parse(issued.out) as { grants: { id: string }[] }).grants[0]!.id;
  const client = await connectBridge(options(), { "x-api-key": apiKey, authorization: agent.bearer });
  try {
    const created = resultJson(
      await client.callTool({
        name: "create_checkout",
        arguments: {
          store_slug: store.slug,
          items: [{ id: variantId, quantity: 2 }],
          buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
          shipping_address: {
            street_address: "1 Market St",
            address_locality: "San Francisco",
            address_region: "CA",
            postal_code: "94105",
            address_country: "US",
          },
        },
      }),
    ) as { id: string };
    const ready = resultJson(
      await client.callTool({
        name: "update_checkout",
        arguments: { store_slug: store.slug, id: created.id, shipping_method_id: "standard" },
      }),
    ) as { status: string };
    assert.equal(ready.status, "ready_for_complete");
    const ref = [{ store_slug: store.slug, checkout_id: created.id }];

    const quoted = await client.callTool({
      name: "quote_purchase",
      arguments: { checkouts: ref, apply_coupon: true },
    });
    const quote = resultJson(quoted) as {
      total: Money;
      checkouts: { coupon?: { id: string; amount: number } }[];
      legs: { coin_type: string; amount: string }[];
      transaction: { bytes: string };
    };
    assert.ok(!(quoted as { isError?: boolean }).isError, JSON.stringify(quote));
    // 2 × 25.00 = 50.00, less the 10.00 coupon
    assert.deepEqual(quote.total, { amount: 4000, currency: "USD", formatted: "$40.00" });
    assert.deepEqual([quote.checkouts[0]?.coupon?.id, quote.checkouts[0]?.coupon?.amount], [grant, 1000]);
    assert.deepEqual(
      quote.legs.map((l) => l.amount),
      ["40000000"],
    );

    const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
    // the coupon belongs on the quote: confirm refuses it rather than pretend it changes anything
    const misplaced = toolError(
      await client.callTool({
        name: "confirm_purchase",
        arguments: { checkouts: ref, transaction_digest: digest, apply_coupon: true },
      }),
    );
    assert.deepEqual([misplaced.code, misplaced.path], ["invalid_request", "$.apply_coupon"]);
    const confirmed = resultJson(
      await client.callTool({
        name: "confirm_purchase",
        arguments: { checkouts: ref, transaction_digest: digest, payment_mandate_id: allowance.id },
      }),
    ) as { status: string; results: { order?: { id: string } }[] };
    assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
    const orderId = confirmed.results[0]!.order!.id;

    const db = await getDb();
    const order = await db.order.findUniqueOrThrow({ where: { id: orderId } });
    assert.equal(order.serviceCouponMinor, 1000);
    assert.equal(
      (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount,
      5000,
    );
    const payables = await db.couponPayable.findMany({ where: { orderId } });
    assert.deepEqual(
      payables.map((p) => [p.amountMinor, p.grantId, p.status]),
      [[1000, grant, "open"]],
    );
    // the merchant received exactly the discounted legs: 40 USDC + the 10.00 payable = the 50.00 order total
    const got = await balances(sandboxUrl(), payout);
    assert.equal(got.get(normalizeStructTag(quote.legs[0]!.coin_type)), 40_000_000n);
    const wire = resultJson(
      await client.callTool({ name: "get_order", arguments: { store_slug: store.slug, id: orderId } }),
    ) as { funding?: { source: string; funded_by: string; amount: number }[] };
    assert.deepEqual(
      wire.funding?.map((f) => [f.source, f.funded_by, f.amount]),
      [
        ["svc.crypto", "buyer", 4000],
        ["service_coupon", "service", 1000],
      ],
    );
    assert.equal(
      (await db.couponGrant.findUniqueOrThrow({ where: { id: grant } })).redeemedAt !== null,
      true,
    );
  } finally {
    await client.close();
  }
});

test("crypto, two stores in one transaction: each checkout gets its own coupon; each merchant receives its discounted share and one payable", async () => {
  const a = await seedCryptoStore({ coins: ["USDC"], priceMinor: 1200 });
  const b = await seedCryptoStore({ coins: ["USDC"], priceMinor: 3400 });
  const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
  const allowance = await saveIntentMandate({
    buyerId: agent.buyerId,
    buyerAddress: agent.wallet.address,
    clientId: agent.clientId,
    envelope: await signAllowance(agent.wallet, agent.clientId),
    now: new Date(),
  });
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  for (const amount of ["1000", "500"]) {
    const issued = await runAdminCaptured(
      "issue-coupon",
      "--amount",
      amount,
      "--currency",
      "USD",
      "--expires",
      expires,
      "--to",
      agent.wallet.address,
    );
    assert.equal(issued.code, 0);
  }
  const client = await connectBridge(options(), { "x-api-key": apiKey, authorization: agent.bearer });
  try {
    const ready = async (store: { slug: string }, variantId: string) => {
      const created = resultJson(
        await client.callTool({
          name: "create_checkout",
          arguments: {
            store_slug: store.slug,
            items: [{ id: variantId, quantity: 1 }],
            buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
            shipping_address: {
              street_address: "1 Market St",
              address_locality: "San Francisco",
              address_region: "CA",
              postal_code: "94105",
              address_country: "US",
            },
          },
        }),
      ) as { id: string };
      await client.callTool({
        name: "update_checkout",
        arguments: { store_slug: store.slug, id: created.id, shipping_method_id: "standard" },
      });
      return { store_slug: store.slug, checkout_id: created.id };
    };
    const refs = [await ready(a.store, a.variantId), await ready(b.store, b.variantId)];
    const quoted = await client.callTool({
      name: "quote_purchase",
      arguments: { checkouts: refs, apply_coupon: true },
    });
    const quote = resultJson(quoted) as {
      total: Money;
      checkouts: { total?: Money; coupon?: { amount: number } }[];
      transaction: { bytes: string };
    };
    assert.ok(!(quoted as { isError?: boolean }).isError, JSON.stringify(quote));
    // the largest coupon goes first: 12.00 − 10.00 and 34.00 − 5.00
    assert.deepEqual(
      quote.checkouts.map((c) => [c.total?.amount, c.coupon?.amount]),
      [
        [200, 1000],
        [2900, 500],
      ],
    );
    assert.equal(quote.total.amount, 3100);
    const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
    const confirmed = resultJson(
      await client.callTool({
        name: "confirm_purchase",
        arguments: { checkouts: refs, transaction_digest: digest, payment_mandate_id: allowance.id },
      }),
    ) as { status: string };
    assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
    const db = await getDb();
    const usdc = (m: Map<string, bigint>) =>
      [...m.entries()].find(([coin]) => coin.endsWith("::usdc::USDC"))?.[1] ?? 0n;
    for (const [shop, ref, paid, coupon, total] of [
      [a, refs[0]!, 200, 1000, 1200],
      [b, refs[1]!, 2900, 500, 3400],
    ] as const) {
      const order = await db.order.findUniqueOrThrow({ where: { checkoutId: ref.checkout_id } });
      const payable = await db.couponPayable.findUniqueOrThrow({ where: { orderId: order.id } });
      assert.deepEqual(
        [order.serviceCouponMinor, payable.amountMinor, payable.storeId],
        [coupon, coupon, shop.store.id],
      );
      // rail receipts (USDC at 1.00, 6 decimals) + payable = the order total
      assert.equal(usdc(await balances(sandboxUrl(), shop.payout)), BigInt(paid) * 10_000n);
      assert.equal(paid + payable.amountMinor, total);
    }
  } finally {
    await client.close();
  }
});

test("crypto: a larger coupon swapped in after the quote was signed → the payable is exactly what the rail did not receive", async () => {
  const { store, payout, variantId } = await seedCryptoStore({ coins: ["USDC"] });
  const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
  const allowance = await saveIntentMandate({
    buyerId: agent.buyerId,
    buyerAddress: agent.wallet.address,
    clientId: agent.clientId,
    envelope: await signAllowance(agent.wallet, agent.clientId),
    now: new Date(),
  });
  const grants: string[] = [];
  for (const amount of ["500", "1500"]) {
    const issued = await runAdminCaptured(
      "issue-coupon",
      "--amount",
      amount,
      "--currency",
      "USD",
      "--expires",
      new Date(Date.now() + 86_400_000).toISOString(),
      "--to",
      agent.wallet.address,
      "--json",
    );
    grants.push((JSON.parse(issued.out) as { grants: { id: string }[] }).grants[0]!.id);
  }
  const client = await connectBridge(options(), { "x-api-key": apiKey, authorization: agent.bearer });
  try {
    const created = resultJson(
      await client.callTool({
        name: "create_checkout",
        arguments: {
          store_slug: store.slug,
          items: [{ id: variantId, quantity: 2 }],
          buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
          shipping_address: {
            street_address: "1 Market St",
            address_locality: "San Francisco",
            address_region: "CA",
            postal_code: "94105",
            address_country: "US",
          },
        },
      }),
    ) as { id: string };
    await client.callTool({
      name: "update_checkout",
      arguments: { store_slug: store.slug, id: created.id, shipping_method_id: "standard" },
    });
    const ref = { store_slug: store.slug, checkout_id: created.id };
    const quote = resultJson(
      await client.callTool({
        name: "quote_purchase",
        arguments: { checkouts: [ref], apply_coupon: grants[0] },
      }),
    ) as { total: Money; transaction: { bytes: string } };
    assert.equal(quote.total.amount, 4500);
    // the agent swaps the coupon for the larger one after the buyer signed the 45.00 quote
    const swapped = resultJson(
      await client.callTool({
        name: "apply_coupon_to_checkout",
        arguments: { ...ref, coupon_id: grants[1] },
      }),
    ) as { amount_due: number };
    assert.equal(swapped.amount_due, 3500);
    const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
    const confirmed = resultJson(
      await client.callTool({
        name: "confirm_purchase",
        arguments: { checkouts: [ref], transaction_digest: digest, payment_mandate_id: allowance.id },
      }),
    ) as { status: string };
    assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
    const db = await getDb();
    const order = await db.order.findUniqueOrThrow({ where: { checkoutId: created.id } });
    const payable = await db.couponPayable.findUniqueOrThrow({ where: { orderId: order.id } });
    // the rail received 45.00: the service owes 5.00, not the 15.00 face of the coupon now on the checkout
    assert.deepEqual([order.serviceCouponMinor, payable.amountMinor, payable.grantId], [500, 500, grants[1]]);
    const usdc = [...(await balances(sandboxUrl(), payout)).entries()].find(([c]) =>
      c.endsWith("::usdc::USDC"),
    )?.[1];
    assert.equal(usdc, 45_000_000n);
    // the first coupon went back to the buyer
    assert.equal((await db.couponGrant.findUniqueOrThrow({ where: { id: grants[0]! } })).redeemedAt, null);
  } finally {
    await client.close();
  }
});
