import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { fromBase64, normalizeStructTag } from "@mysten/sui/utils";

import { reconcileCryptoPayments } from "@/lib/checkout/completion/reconcile-crypto";
import { getGroupWalletPage, payGroupOnWalletPage } from "@/lib/checkout/crypto/group-wallet-page";
import { getWalletPage } from "@/lib/checkout/crypto/wallet-page";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { saveIntentMandate } from "@/lib/mandates/intent-mandates";

import { seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import {
  bearerHeaders,
  createCryptoCheckout,
  cryptoCompletionBody,
  cryptoTestSetup,
  linkBuyerAgent,
  newWallet,
  sandboxUrl,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  signedProfile,
  USDC_UNIT,
  type BuyerAgent,
} from "../../helpers/crypto-purchase";
import { connectMcpClient } from "../../helpers/mcp-client";
import { balances, USDC } from "../../helpers/sui-sandbox";
import type { Checkout } from "../checkout/helpers";

// prepare_combined_payment on /account/mcp: one transaction paying 2–5 checkouts of one buyer in different stores,
// completed at each store with the one digest (REST and MCP), each checkout claiming its own legs once; every bad
// input refused with a clear code and nothing stored; the sweep finishing a group that was paid but only partly
// completed; the receipts (each order's leg, list_my_orders' payment_group). Money is read from the sandbox ledger.

const suite = cryptoTestSetup();

type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown> };
type Combined = {
  group_id: string;
  buyer_address: string;
  transaction: { bytes: string; digest: string };
  checkouts: {
    store_slug: string;
    checkout_id: string;
    total: number;
    currency: string;
    legs: { coin_type: string; symbol: string; decimals: number; amount: string; fiat_amount: number }[];
  }[];
  quote: { mode: string; currency: string; total: number; legs: { symbol: string; amount: string }[] };
  expires_at: string;
  continue_url: string;
};
type Completed = Checkout & { order?: { id: string } };
type Shop = Awaited<ReturnType<typeof seedCryptoStore>> & { checkout: Checkout };

const account = (agent: BuyerAgent) =>
  connectMcpClient("/account/mcp", {
    headers: { authorization: agent.bearer, "request-id": "", "ucp-agent": "" },
  });

/** prepare_combined_payment; a protocol error (bad arguments) rejects, a business error is a tool result. */
const prepareCombined = async (agent: BuyerAgent, args: Record<string, unknown>) => {
  const client = await account(agent);
  try {
    return (await client.callTool({
      name: "prepare_combined_payment",
      arguments: { buyer_address: agent.wallet.address, ...args },
    })) as ToolAnswer;
  } finally {
    await client.close();
  }
};

const codeOf = (answer: ToolAnswer) =>
  ((answer.structuredContent?.messages as { code: string; path?: string }[] | undefined) ?? []).map((m) => [
    m.code,
    m.path,
  ]);

/** [code, path] of a refused call: a business outcome (tool result) or a protocol error (JSON-RPC error). */
const refusal = async (agent: BuyerAgent, args: Record<string, unknown>) => {
  try {
    return codeOf(await prepareCombined(agent, args));
  } catch (error) {
    const data = /"data":(\{[^}]*\})/.exec((error as Error).message)?.[1];
    if (!data) throw error;
    const parsed = JSON.parse(data) as { code: string; path?: string };
    return [[parsed.code, parsed.path]];
  }
};

const shops = async (n: number, prices = [2500, 1200, 800, 900, 1000, 1100], coins?: string[][]) => {
  const out: Shop[] = [];
  for (let i = 0; i < n; i++) {
    const shop = await seedCryptoStore({ priceMinor: prices[i]!, ...(coins ? { coins: coins[i]! } : {}) });
    out.push({ ...shop, checkout: await createCryptoCheckout(shop.store, suite.apiKey, shop.variantId) });
  }
  return out;
};

const refs = (list: readonly Shop[]) =>
  list.map((s) => ({ store_slug: s.store.slug, checkout_id: s.checkout.id }));

const completeRest = async (shop: Shop, agent: BuyerAgent, digest: string, intent: string) =>
  rest<Completed>("POST", `/s/${shop.store.slug}/checkout-sessions/${shop.checkout.id}/complete`, {
    headers: await bearerHeaders(agent.bearer),
    body: await cryptoCompletionBody(shop.checkout, shop.store.slug, digest, intent),
  });

const completeMcp = async (shop: Shop, agent: BuyerAgent, digest: string, intent: string) => {
  const client = await connectMcpClient(`/s/${shop.store.slug}/mcp`, {
    headers: { authorization: agent.bearer, "ucp-agent": `profile="${(await signedProfile()).url}"` },
  });
  try {
    return (await client.callTool({
      name: "complete_checkout",
      arguments: {
        meta: { "ucp-agent": { profile: (await signedProfile()).url }, "idempotency-key": randomUUID() },
        id: shop.checkout.id,
        checkout: await cryptoCompletionBody(shop.checkout, shop.store.slug, digest, intent),
      },
    })) as ToolAnswer;
  } finally {
    await client.close();
  }
};

const usdcOf = async (address: string) =>
  (await balances(sandboxUrl(), address)).get(normalizeStructTag(USDC)) ?? 0n;
const ordersOf = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

describe("prepare_combined_payment", () => {
  test("three stores paid by one transaction: three completions at once (REST and MCP) and a retry → three orders, each merchant received exactly its legs once; receipts and list_my_orders show the group", async () => {
    const three = await shops(3);
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const answer = await prepareCombined(agent, { checkouts: refs(three) });
    assert.ok(!answer.isError, JSON.stringify(answer));
    const prepared = answer.structuredContent as unknown as Combined;
    assert.match(prepared.group_id, /^cpg_/);
    assert.deepEqual(
      prepared.checkouts.map((c) => [
        c.store_slug,
        c.total,
        c.legs.map((l) => [l.symbol, l.amount, l.fiat_amount]),
      ]),
      [
        [three[0]!.store.slug, 2500, [["USDC", "25000000", 2500]]],
        [three[1]!.store.slug, 1200, [["USDC", "12000000", 1200]]],
        [three[2]!.store.slug, 800, [["USDC", "8000000", 800]]],
      ],
    );
    assert.equal(prepared.quote.total, 4500);
    assert.deepEqual(
      prepared.quote.legs.map((l) => [l.symbol, l.amount]),
      [["USDC", "45000000"]],
    );
    assert.match(prepared.continue_url, /\/account\/pay\/[A-Za-z0-9_-]+$/);
    // every checkout is now bound to this buyer and agent and has its own prepared share
    const db = await getDb();
    for (const shop of three) {
      const row = await db.checkoutSession.findUniqueOrThrow({ where: { id: shop.checkout.id } });
      assert.ok(row.boundPrincipalId?.includes(agent.buyerId));
    }

    const digest = await signAndSubmit(agent.wallet, prepared.transaction.bytes);
    assert.equal(digest, prepared.transaction.digest);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const [a, b, c] = await Promise.all([
      completeRest(three[0]!, agent, digest, intent),
      completeRest(three[1]!, agent, digest, intent),
      completeMcp(three[2]!, agent, digest, intent),
    ]);
    assert.equal(a.body.status, "completed", a.text);
    assert.equal(b.body.status, "completed", b.text);
    assert.equal((c.structuredContent as { status?: string }).status, "completed", JSON.stringify(c));
    // a retry of each is the same completed checkout, and nothing more
    const again = await Promise.all(three.map((s) => completeRest(s, agent, digest, intent)));
    for (const r of again) assert.equal(r.body.status, "completed", r.text);
    for (const shop of three) assert.equal(await ordersOf(shop.checkout.id), 1);
    assert.equal(await usdcOf(three[0]!.payout), 25_000_000n);
    assert.equal(await usdcOf(three[1]!.payout), 12_000_000n);
    assert.equal(await usdcOf(three[2]!.payout), 8_000_000n);
    assert.equal(await db.cryptoOwedBack.count({ where: { paymentDigest: digest } }), 0);

    // receipts: each order shows its leg of the one transaction; list_my_orders groups the three
    const client = await account(agent);
    try {
      const mine = (await client.callTool({ name: "list_my_orders", arguments: {} })) as ToolAnswer;
      const orders = mine.structuredContent?.orders as {
        id: string;
        checkout_id: string;
        payment_group?: {
          id: string;
          transaction_digest: string;
          checkouts: { checkout_id: string; order_id: string | null }[];
        };
        crypto_payment?: { transaction_digest: string; legs: { symbol: string; amount: string }[] };
      }[];
      assert.equal(orders.length, 3);
      for (const order of orders) {
        assert.equal(order.payment_group?.id, prepared.group_id, JSON.stringify(order));
        assert.equal(order.payment_group?.transaction_digest, digest);
        assert.equal(order.payment_group?.checkouts.filter((x) => x.order_id).length, 3);
        assert.equal(order.crypto_payment?.transaction_digest, digest);
      }
      const first = orders.find((o) => o.checkout_id === three[0]!.checkout.id)!;
      assert.deepEqual(
        first.crypto_payment?.legs.map((l) => [l.symbol, l.amount]),
        [["USDC", "25000000"]],
      );
    } finally {
      await client.close();
    }
  });

  test("spend caps: the group reserves ONCE on the buyer's allowance (per-order maximum per checkout, the sum against the day); over it nothing is prepared; three completions make three debits that sum to the orders", async () => {
    const three = await shops(3);
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const allow = async (overrides: Parameters<typeof signAllowance>[2]) => {
      const envelope = await signAllowance(agent.wallet, agent.clientId, overrides);
      const row = await saveIntentMandate({
        buyerId: agent.buyerId,
        buyerAddress: agent.wallet.address,
        clientId: agent.clientId,
        envelope,
        now: new Date(),
      });
      return { id: row.id, envelope };
    };
    const db = await getDb();
    const spend = (allowanceId: string) =>
      db.spendEntry.findMany({ where: { allowanceId }, orderBy: { createdAt: "asc" } });
    const nothingPrepared = async () => {
      for (const shop of three) {
        assert.equal(await db.cryptoPayment.count({ where: { checkoutId: shop.checkout.id } }), 0);
      }
    };

    // 45.00 in all is over a 40.00 day, though each order alone is under it
    const day = await allow({ limits: { day: 4000 } });
    assert.deepEqual((await refusal(agent, { checkouts: refs(three) }))[0]?.[0], "spend_cap_exceeded");
    await nothingPrepared();
    assert.deepEqual(await spend(day.id), []);
    // the 25.00 order is over a 20.00 per-order maximum: refused at that checkout
    const perOrder = await allow({ per_order_max: 2000, limits: { day: 100_000 } });
    assert.deepEqual(await refusal(agent, { checkouts: refs(three), payment_mandate_id: perOrder.id }), [
      ["spend_cap_exceeded", "$.checkouts[0]"],
    ]);
    await nothingPrepared();

    const enough = await allow({ per_order_max: 3000, limits: { day: 5000 } });
    const answer = await prepareCombined(agent, { checkouts: refs(three), payment_mandate_id: enough.id });
    assert.ok(!answer.isError, JSON.stringify(answer));
    const prepared = answer.structuredContent as unknown as Combined;
    const reserved = await spend(enough.id);
    assert.deepEqual(
      reserved.map((e) => [e.kind, e.state, e.amount, e.groupId]),
      [["reservation", "held", 4500, prepared.group_id]],
    );
    const digest = await signAndSubmit(agent.wallet, prepared.transaction.bytes);
    const done = await Promise.all(three.map((shop) => completeRest(shop, agent, digest, enough.envelope)));
    for (const r of done) assert.equal(r.body.status, "completed", r.text);
    const after = await spend(enough.id);
    assert.equal(after.filter((e) => e.kind === "reservation").length, 1, "one reservation for the group");
    assert.equal(after.find((e) => e.kind === "reservation")?.state, "consumed");
    const debits = after.filter((e) => e.kind === "debit");
    assert.deepEqual(
      debits.map((e) => e.amount).sort((x, y) => x - y),
      [800, 1200, 2500],
    );
    const orders = await db.order.findMany({
      where: { checkoutId: { in: three.map((s) => s.checkout.id) } },
    });
    assert.deepEqual(
      new Set(debits.map((e) => e.orderId)),
      new Set(orders.map((o) => o.id)),
      "one debit per order",
    );
  });

  test("a digest of group A used for a checkout of group B is refused; the checkout of group B still completes with its own digest", async () => {
    const wallet = await newWallet({ usdc: [100n * USDC_UNIT] });
    const agent = await linkBuyerAgent(suite.cimd, wallet);
    const groupA = await shops(2);
    const groupB = await shops(2);
    const a = (await prepareCombined(agent, { checkouts: refs(groupA) }))
      .structuredContent as unknown as Combined;
    const digestA = await signAndSubmit(agent.wallet, a.transaction.bytes);
    // group B is prepared from the coins A left (a wallet's coin versions move with every transaction)
    const b = (await prepareCombined(agent, { checkouts: refs(groupB) }))
      .structuredContent as unknown as Combined;
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const refused = await completeRest(groupB[0]!, agent, digestA, intent);
    assert.notEqual(refused.body.status, "completed", refused.text);
    assert.match(refused.text, /payment_failed/);
    assert.equal(await ordersOf(groupB[0]!.checkout.id), 0);
    // group A's own checkouts still claim it
    for (const shop of groupA) {
      const done = await completeRest(shop, agent, digestA, intent);
      assert.equal(done.body.status, "completed", done.text);
    }
    const digestB = await signAndSubmit(agent.wallet, b.transaction.bytes);
    const done = await completeRest(groupB[0]!, agent, digestB, intent);
    assert.equal(done.body.status, "completed", done.text);
  });

  test("bad input: 1 or 6 checkouts, two of one store, another buyer's checkout (nothing bound), not ready, a store without crypto, no common coin, insufficient funds — each a clear code, nothing stored", async () => {
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const two = await shops(2);
    await assert.rejects(
      prepareCombined(agent, { checkouts: refs(two.slice(0, 1)) }),
      /invalid_request[\s\S]*checkouts/,
    );
    const six = [...refs(two), ...refs(two), ...refs(two)];
    await assert.rejects(prepareCombined(agent, { checkouts: six }), /invalid_request[\s\S]*checkouts/);

    const sameStore = await createCryptoCheckout(two[0]!.store, suite.apiKey, two[0]!.variantId);
    const dup = await refusal(agent, {
      checkouts: [...refs(two), { store_slug: two[0]!.store.slug, checkout_id: sameStore.id }],
    });
    assert.deepEqual(dup, [["invalid_request", "$.checkouts[2].store_slug"]]);

    // another buyer's agent binds the second checkout first: ours is not_found, and the first stays unbound
    const other = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const taken = await prepareCombined(other, { checkouts: refs(two) });
    assert.ok(!taken.isError, JSON.stringify(taken));
    const fresh = await shops(1);
    const notMine = await refusal(agent, { checkouts: [...refs(fresh), refs(two)[1]!] });
    assert.deepEqual(notMine, [["not_found", "$.checkouts[1].checkout_id"]]);
    const db = await getDb();
    const unbound = await db.checkoutSession.findUniqueOrThrow({ where: { id: fresh[0]!.checkout.id } });
    assert.equal(unbound.boundPrincipalId, null, "all or nothing: nothing bound");

    // not ready: a checkout without a shipping address
    const plain = await seedCryptoStore();
    const draft = await rest<Checkout>("POST", `/s/${plain.store.slug}/checkout-sessions`, {
      headers: {
        "x-api-key": suite.apiKey,
        "ucp-agent": `profile="${(await signedProfile()).url}"`,
        "idempotency-key": randomUUID(),
      },
      body: { line_items: [{ item: { id: plain.variantId }, quantity: 1 }] },
    });
    const notReady = await refusal(agent, {
      checkouts: [...refs(fresh), { store_slug: plain.store.slug, checkout_id: draft.body.id }],
    });
    assert.deepEqual(notReady, [["checkout_not_modifiable", "$.checkouts[1].checkout_id"]]);

    // a store without crypto
    const cardOnly = await seedStore({ cryptoEnabled: false, cardEnabled: true });
    const noCrypto = await refusal(agent, {
      checkouts: [...refs(fresh), { store_slug: cardOnly.slug, checkout_id: "chk_whatever" }],
    });
    assert.deepEqual(noCrypto, [["rail_not_available", "$.checkouts[1].store_slug"]]);

    // no coin in common
    const apart = await shops(2, [1000, 1000], [["USDC"], ["SUI"]]);
    const noCommon = await refusal(agent, { checkouts: refs(apart) });
    assert.deepEqual(noCommon, [["unsupported_coin", "$.checkouts"]]);
    const notEverywhere = await refusal(agent, {
      checkouts: refs(await shops(2, [1000, 1000], [["USDC", "SUI"], ["USDC"]])),
      input_coin_type: "SUI",
    });
    assert.deepEqual(notEverywhere, [["unsupported_coin", "$.input_coin_type"]]);

    // insufficient funds: 45 USDC of totals, 30 USDC held and no SUI beyond gas
    const poor = await linkBuyerAgent(
      suite.cimd,
      await newWallet({ sui: [20_000_000n], usdc: [30n * USDC_UNIT] }),
    );
    const three = await shops(3);
    const broke = await refusal(poor, { checkouts: refs(three) });
    assert.equal(broke[0]?.[0], "insufficient_funds", JSON.stringify(broke));
    for (const shop of [...three, ...apart, ...fresh]) {
      assert.equal(await db.cryptoPayment.count({ where: { checkoutId: shop.checkout.id } }), 0);
      assert.equal(await db.paymentAttempt.count({ where: { checkoutId: shop.checkout.id } }), 0);
    }
    assert.equal(await db.cryptoPaymentGroup.count({ where: { buyerId: poor.buyerId } }), 0);
  });

  test("a checkout whose price rises after the combined prepare: its completion places no order and its leg is owed back; the others complete", async () => {
    const two = await shops(2);
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const prepared = (await prepareCombined(agent, { checkouts: refs(two) }))
      .structuredContent as unknown as Combined;
    const db = await getDb();
    // the agent changes the second checkout after the prepare: two mugs, 2400 instead of 1200
    const updated = await rest<Checkout>(
      "PUT",
      `/s/${two[1]!.store.slug}/checkout-sessions/${two[1]!.checkout.id}`,
      {
        headers: {
          "x-api-key": suite.apiKey,
          "ucp-agent": `profile="${(await signedProfile()).url}"`,
          "idempotency-key": randomUUID(),
        },
        body: { line_items: [{ item: { id: two[1]!.variantId }, quantity: 2 }] },
      },
    );
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.status, "ready_for_complete", updated.text);
    const digest = await signAndSubmit(agent.wallet, prepared.transaction.bytes);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const ok = await completeRest(two[0]!, agent, digest, intent);
    assert.equal(ok.body.status, "completed", ok.text);
    const short = await completeRest({ ...two[1]!, checkout: updated.body }, agent, digest, intent);
    assert.notEqual(short.body.status, "completed", short.text);
    assert.equal(await ordersOf(two[1]!.checkout.id), 0);
    const owed = await db.cryptoOwedBack.findMany({ where: { checkoutId: two[1]!.checkout.id } });
    assert.equal(owed.length, 1);
    assert.deepEqual(
      (owed[0]!.amounts as { amount: string }[]).map((x) => x.amount),
      ["12000000"],
    );
  });

  test("a group paid but completed at one store only: the sweep places the other orders", async () => {
    const three = await shops(3);
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const prepared = (await prepareCombined(agent, { checkouts: refs(three) }))
      .structuredContent as unknown as Combined;
    const digest = await signAndSubmit(agent.wallet, prepared.transaction.bytes);
    const intent = await signAllowance(agent.wallet, agent.clientId);
    const one = await completeRest(three[0]!, agent, digest, intent);
    assert.equal(one.body.status, "completed", one.text);
    assert.equal(await ordersOf(three[1]!.checkout.id), 0);
    // the buyer sees the group partly completed
    const client = await account(agent);
    try {
      const mine = (await client.callTool({ name: "list_my_orders", arguments: {} })) as ToolAnswer;
      const [order] = mine.structuredContent?.orders as {
        payment_group?: { checkouts: { checkout_id: string; order_id: string | null }[] };
      }[];
      assert.deepEqual(
        order?.payment_group?.checkouts.map((x) => Boolean(x.order_id)),
        [true, false, false],
      );
    } finally {
      await client.close();
    }
    // one pass over one store's payments finishes the whole group: the other share is finished with it
    const swept = await reconcileCryptoPayments({ storeId: three[1]!.store.id, graceMs: 0 });
    assert.deepEqual(
      swept.map((r) => [r.checkoutId, r.result]).sort(),
      [
        [three[1]!.checkout.id, "order_placed"],
        [three[2]!.checkout.id, "order_placed"],
      ].sort(),
    );
    for (const shop of three) assert.equal(await ordersOf(shop.checkout.id), 1);
    assert.equal(await usdcOf(three[1]!.payout), 12_000_000n);
    // a late retry of the agent answers the completed checkout
    const retry = await completeRest(three[2]!, agent, digest, intent);
    assert.equal(retry.body.status, "completed", retry.text);
  });

  test("a new combined prepare after the previous group's transaction landed finishes with it instead (landed-first)", async () => {
    const two = await shops(2);
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const first = (await prepareCombined(agent, { checkouts: refs(two) }))
      .structuredContent as unknown as Combined;
    await signAndSubmit(agent.wallet, first.transaction.bytes);
    const again = await prepareCombined(agent, { checkouts: refs(two) });
    assert.equal(codeOf(again)[0]?.[0], "checkout_not_modifiable", JSON.stringify(again));
    for (const shop of two) assert.equal(await ordersOf(shop.checkout.id), 1);
    assert.equal(await usdcOf(two[0]!.payout), 25_000_000n);
  });

  test("the group's wallet page: only the group's buyer may pay; the wallet signs once, the server executes and every checkout gets its order", async () => {
    const three = await shops(3);
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const prepared = (await prepareCombined(agent, { checkouts: refs(three) }))
      .structuredContent as unknown as Combined;
    const token = prepared.continue_url.split("/").at(-1)!;
    const viewer = { id: agent.buyerId, suiAddress: agent.wallet.address };
    const page = await getGroupWalletPage({ token, viewer });
    assert.equal(page?.state, "open");
    assert.equal(page?.access.kind, "buyer");
    assert.deepEqual(
      page?.checkouts.map((c) => [c.storeSlug, c.totalMinor, c.legs.map((l) => l.text)]),
      [
        [three[0]!.store.slug, 2500, ["25 USDC"]],
        [three[1]!.store.slug, 1200, ["12 USDC"]],
        [three[2]!.store.slug, 800, ["8 USDC"]],
      ],
    );
    // a checkout's own payment link points at the group's page and prepares nothing of its own
    const db = await getDb();
    const link = await db.checkoutSession.findUniqueOrThrow({ where: { id: three[0]!.checkout.id } });
    const single = await getWalletPage({
      slug: three[0]!.store.slug,
      token: link.continueToken!,
      viewer,
      baseUrl: "http://127.0.0.1:3000",
    });
    assert.equal(single?.group?.url, `/account/pay/${token}`);
    assert.equal(single?.quote, null);
    assert.equal(await db.cryptoPayment.count({ where: { checkoutId: three[0]!.checkout.id } }), 1);
    const { signature } = await agent.wallet.kp.signTransaction(fromBase64(prepared.transaction.bytes));
    const stranger = await newWallet();
    await assert.rejects(
      payGroupOnWalletPage({
        token,
        viewer: { id: "buyer_other", suiAddress: stranger.address },
        transaction: prepared.transaction.bytes,
        signature,
      }),
      /another buyer/,
    );
    const paid = await payGroupOnWalletPage({
      token,
      viewer,
      transaction: prepared.transaction.bytes,
      signature,
    });
    assert.equal(paid.digest, prepared.transaction.digest);
    assert.deepEqual(
      paid.checkouts.map((c) => c.result.kind),
      ["order_placed", "order_placed", "order_placed"],
    );
    // paying the same bytes again answers the same orders and moves nothing more
    const again = await payGroupOnWalletPage({
      token,
      viewer,
      transaction: prepared.transaction.bytes,
      signature,
    });
    assert.deepEqual(
      again.checkouts.map((c) => c.result.kind),
      ["order_placed", "order_placed", "order_placed"],
    );
    for (const shop of three) assert.equal(await ordersOf(shop.checkout.id), 1);
    assert.equal(await usdcOf(three[2]!.payout), 8_000_000n);
    assert.equal((await getGroupWalletPage({ token, viewer }))?.state, "paid");
  });
  test("two groups built from one wallet's coins: the second, its coins spent by the first, is refused on its page as a payment to prepare again; nothing charged, no order", async () => {
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const viewer = { id: agent.buyerId, suiAddress: agent.wallet.address };
    type Group = { pair: Awaited<ReturnType<typeof shops>>; prepared: Combined; token: string };
    const groups: Group[] = [];
    for (const pair of [await shops(2), await shops(2)]) {
      const prepared = (await prepareCombined(agent, { checkouts: refs(pair) }))
        .structuredContent as unknown as Combined;
      groups.push({ pair, prepared, token: prepared.continue_url.split("/").at(-1)! });
    }
    const payPage = async ({ prepared, token }: Group) =>
      payGroupOnWalletPage({
        token,
        viewer,
        transaction: prepared.transaction.bytes,
        signature: (await agent.wallet.kp.signTransaction(fromBase64(prepared.transaction.bytes))).signature,
      });
    const first = await payPage(groups[0]!);
    assert.deepEqual(
      first.checkouts.map((c) => c.result.kind),
      ["order_placed", "order_placed"],
    );
    const buyerBefore = await usdcOf(agent.wallet.address);
    await assert.rejects(payPage(groups[1]!), (error) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, "checkout_not_modifiable", error.message);
      assert.match(
        error.message,
        /another payment from your wallet.*Nothing was charged.*new combined payment/s,
      );
      return true;
    });
    assert.equal(await usdcOf(agent.wallet.address), buyerBefore, "the buyer paid nothing more");
    for (const shop of groups[1]!.pair) {
      assert.equal(await ordersOf(shop.checkout.id), 0);
      assert.equal(await usdcOf(shop.payout), 0n);
    }
  });
});
