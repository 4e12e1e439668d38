import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { normalizeStructTag } from "@mysten/sui/utils";

import { getDb } from "@/lib/config/db";
import { saveIntentMandate } from "@/lib/mandates/intent-mandates";

import {
  createCryptoCheckout,
  cryptoCompletionBody,
  cryptoTestSetup,
  lapseReservations,
  linkBuyerAgent,
  newWallet,
  sandboxUrl,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  signedProfile,
  USDC_UNIT,
  type BuyerAgent,
  type Prepared,
} from "../../helpers/crypto-purchase";
import { connectMcpClient, type McpClient } from "../../helpers/mcp-client";
import { balances, USDC } from "../../helpers/sui-sandbox";
import type { Checkout } from "../checkout/helpers";

// The crypto rail over MCP with the official SDK client (its output-schema validation on): prepare_checkout_payment
// on the store's MCP with the buyer's bearer alone, retried with the same meta idempotency key (the same bytes),
// complete_checkout with the digest, get_intent_mandate on /account/mcp handing the agent the allowance the buyer
// signed, and a store pricing in EUR paid in USDC through the oracle's FX rate.

const suite = cryptoTestSetup();

type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown> };

const bearerClient = async (endpoint: string, agent: BuyerAgent): Promise<McpClient> =>
  connectMcpClient(endpoint, {
    headers: { authorization: agent.bearer, "ucp-agent": `profile="${(await signedProfile()).url}"` },
  });

const meta = async (key = randomUUID()) => ({
  "ucp-agent": { profile: (await signedProfile()).url },
  "idempotency-key": key,
});

const code = (answer: ToolAnswer) =>
  (answer.structuredContent?.messages as { code: string }[] | undefined)?.[0]?.code;

describe("MCP crypto purchase", () => {
  test("prepare_checkout_payment → the wallet signs → complete_checkout with the digest; a retry with the same idempotency key returns the same bytes", async () => {
    const { store, payout, variantId } = await seedCryptoStore();
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const checkout = await createCryptoCheckout(store, suite.apiKey, variantId);
    const client = await bearerClient(`/s/${store.slug}/mcp`, agent);
    try {
      const key = randomUUID();
      const call = async () =>
        (await client.callTool({
          name: "prepare_checkout_payment",
          arguments: { meta: await meta(key), id: checkout.id, buyer_address: agent.wallet.address },
        })) as ToolAnswer;
      const first = await call();
      assert.ok(!first.isError, JSON.stringify(first));
      const prepared = first.structuredContent as unknown as Prepared;
      assert.deepEqual(
        prepared.quote.legs.map((l) => l.symbol),
        ["USDC"],
      );
      const again = (await call()).structuredContent as unknown as Prepared;
      assert.equal(again.transaction.bytes, prepared.transaction.bytes);
      assert.equal(again.transaction.digest, prepared.transaction.digest);
      assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 1);

      const digest = await signAndSubmit(agent.wallet, prepared.transaction.bytes);
      const body = await cryptoCompletionBody(
        checkout,
        store.slug,
        digest,
        await signAllowance(agent.wallet, agent.clientId),
      );
      const done = (await client.callTool({
        name: "complete_checkout",
        arguments: { meta: await meta(), id: checkout.id, checkout: body },
      })) as ToolAnswer;
      assert.ok(!done.isError, JSON.stringify(done));
      const completed = done.structuredContent as unknown as Checkout & { order: { id: string } };
      assert.equal(completed.status, "completed");
      assert.ok(completed.order.id);
      const received = (await balances(sandboxUrl(), payout)).get(normalizeStructTag(USDC));
      assert.equal(received, 25_000_000n);

      // the platform created the checkout, this agent bound and paid it: the order is in its list_my_orders, with
      // the digest as the payment; another agent of the same buyer does not see it
      const account = await connectMcpClient("/account/mcp", {
        headers: { authorization: agent.bearer, "request-id": "", "ucp-agent": "" },
      });
      const sibling = await linkBuyerAgent(suite.cimd, agent.wallet, undefined, agent.buyerId);
      const other = await connectMcpClient("/account/mcp", {
        headers: { authorization: sibling.bearer, "request-id": "", "ucp-agent": "" },
      });
      try {
        const mine = (await account.callTool({ name: "list_my_orders", arguments: {} })) as ToolAnswer;
        const ids = (mine.structuredContent?.orders as { id: string }[]).map((o) => o.id);
        assert.deepEqual(ids, [completed.order.id]);
        const theirs = (await other.callTool({ name: "list_my_orders", arguments: {} })) as ToolAnswer;
        assert.deepEqual(theirs.structuredContent?.orders, []);
      } finally {
        await account.close();
        await other.close();
      }
    } finally {
      await client.close();
    }
  });

  test("prepare_checkout_payment with a platform key is identity_required (buyer-bound); with another buyer's wallet address it is invalid_request", async () => {
    const { store, variantId } = await seedCryptoStore();
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const checkout = await createCryptoCheckout(store, suite.apiKey, variantId);
    const keyed = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": suite.apiKey } });
    try {
      // a protocol error (HTTP 401 with the JSON-RPC error), before anything runs
      await assert.rejects(
        keyed.callTool({
          name: "prepare_checkout_payment",
          arguments: { meta: await meta(), id: checkout.id, buyer_address: agent.wallet.address },
        }),
        /identity_required[\s\S]*ALONE/,
      );
    } finally {
      await keyed.close();
    }
    const client = await bearerClient(`/s/${store.slug}/mcp`, agent);
    try {
      const other = await newWallet();
      await assert.rejects(
        client.callTool({
          name: "prepare_checkout_payment",
          arguments: { meta: await meta(), id: checkout.id, buyer_address: other.address },
        }),
        /invalid_request[\s\S]*\$\.buyer_address/,
      );
    } finally {
      await client.close();
    }
    assert.equal(await (await getDb()).cryptoPayment.count({ where: { checkoutId: checkout.id } }), 0);
  });

  test("get_intent_mandate on /account/mcp hands the calling agent the allowance the buyer signed for it, and no other agent's", async () => {
    const wallet = await newWallet();
    const agent = await linkBuyerAgent(suite.cimd, wallet, undefined, undefined, { allowance: false });
    const sibling = await linkBuyerAgent(suite.cimd, wallet, undefined, agent.buyerId, { allowance: false });
    const envelope = await signAllowance(wallet, agent.clientId, { per_order_max: 10_000 });
    await saveIntentMandate({
      buyerId: agent.buyerId,
      buyerAddress: wallet.address,
      clientId: agent.clientId,
      envelope,
      now: new Date(),
    });
    const mine = await connectMcpClient("/account/mcp", {
      headers: { authorization: agent.bearer, "request-id": "", "ucp-agent": "" },
    });
    const theirs = await connectMcpClient("/account/mcp", {
      headers: { authorization: sibling.bearer, "request-id": "", "ucp-agent": "" },
    });
    try {
      const got = (await mine.callTool({ name: "get_intent_mandate", arguments: {} })) as ToolAnswer;
      assert.ok(!got.isError, JSON.stringify(got));
      assert.equal(got.structuredContent?.intent_mandate, envelope);
      assert.equal(got.structuredContent?.per_order_max, 10_000);
      const none = (await theirs.callTool({ name: "get_intent_mandate", arguments: {} })) as ToolAnswer;
      assert.equal(code(none), "not_found", JSON.stringify(none));
      assert.equal(none.structuredContent?.intent_mandate, undefined);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  test("a store pricing in EUR: the USDC leg is the total at the oracle's EUR→USD rate, rounded against the buyer", async () => {
    const { store, payout, variantId } = await seedCryptoStore({ currency: "EUR", priceMinor: 1999 });
    const agent = await linkBuyerAgent(suite.cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const checkout = await createCryptoCheckout(store, suite.apiKey, variantId);
    const client = await bearerClient(`/s/${store.slug}/mcp`, agent);
    try {
      const answer = (await client.callTool({
        name: "prepare_checkout_payment",
        arguments: { meta: await meta(), id: checkout.id, buyer_address: agent.wallet.address },
      })) as ToolAnswer;
      assert.ok(!answer.isError, JSON.stringify(answer));
      const prepared = answer.structuredContent as unknown as Prepared;
      // 19.99 EUR × 1.08 USD/EUR = 21.5892 USD → 21.589200 USDC exactly (6 decimals); never rounded down
      assert.equal(prepared.quote.currency, "EUR");
      assert.deepEqual(
        prepared.quote.legs.map((l) => [l.symbol, l.amount]),
        [["USDC", "21589200"]],
      );
      const digest = await signAndSubmit(agent.wallet, prepared.transaction.bytes);
      // the prepare's reservation lapsed: the completion's allowance is judged as the agent sends it
      await lapseReservations(checkout.id);
      // the allowance is in USD: the EUR total converts at the same rate (2159 cents, rounded up) for its cap
      const tooSmall = await signAllowance(agent.wallet, agent.clientId, { per_order_max: 2158 });
      const refused = (await client.callTool({
        name: "complete_checkout",
        arguments: {
          meta: await meta(),
          id: checkout.id,
          checkout: await cryptoCompletionBody(checkout, store.slug, digest, tooSmall),
        },
      })) as ToolAnswer;
      assert.match(JSON.stringify(refused), /spend_cap_exceeded/);
      const enough = await signAllowance(agent.wallet, agent.clientId, { per_order_max: 2159 });
      const done = (await client.callTool({
        name: "complete_checkout",
        arguments: {
          meta: await meta(),
          id: checkout.id,
          checkout: await cryptoCompletionBody(checkout, store.slug, digest, enough),
        },
      })) as ToolAnswer;
      assert.equal((done.structuredContent as { status?: string }).status, "completed", JSON.stringify(done));
      assert.equal((await balances(sandboxUrl(), payout)).get(normalizeStructTag(USDC)), 21_589_200n);
    } finally {
      await client.close();
    }
  });
});
