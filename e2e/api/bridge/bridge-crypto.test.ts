import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { normalizeStructTag } from "@mysten/sui/utils";

import type { BridgeOptions } from "@/lib/bridge/http";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
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
  type BuyerAgent,
} from "../../helpers/crypto-purchase";
import { balances, hideDigest } from "../../helpers/sui-sandbox";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  connectBridge,
  resultJson,
  serviceFetch,
  TEST_BASE_URL,
  toolError,
  type SeenRequest,
} from "./helpers";

// A crypto purchase through the bridge only (issue "The bridge": pays with one crypto transaction): the official
// SDK client builds the checkout with flat tools, quote_purchase prepares the transaction with the buyer's bearer,
// the buyer's wallet (the test's key) signs and submits it, and confirm_purchase completes with the digest, the
// bridge's checkout mandate and the buyer's allowance fetched from /account/mcp. Money invariants: the merchant
// receives exactly the quoted legs; an answer lost on the way back is retried with the same idempotency key and
// makes one order; a digest not final yet is reported pending with that digest and the retry finishes it once.

let cimd: CimdServer;
let profile: AgentProfileServer;
let apiKey = "";
const seen: SeenRequest[] = [];

const options = (extra: Partial<BridgeOptions> = {}): BridgeOptions => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: profile.profileUrl,
  key: profile.key,
  fetch: serviceFetch(seen),
  retry: { baseDelayMs: 1, sleep: async () => {} },
  ...extra,
});

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

const ADDRESS = {
  street_address: "1 Market St",
  address_locality: "San Francisco",
  address_region: "CA",
  postal_code: "94105",
  address_country: "US",
};

type Money = { amount: number; currency: string; formatted: string };
type Quote = {
  quote_id: string;
  group_id?: string;
  buyer_address: string;
  total: Money;
  checkouts: { store_slug: string; checkout_id: string; total?: Money }[];
  legs: {
    coin_type: string;
    symbol: string;
    amount: string;
    amount_formatted: string;
    formatted: string;
    fiat_amount: Money;
  }[];
  transaction: { bytes: string; digest: string };
  continue_url: string;
  expires_at: string;
  next_steps: string;
};
type Confirmed = {
  status: string;
  message: string;
  results: {
    status: string;
    already_completed?: boolean;
    order?: { id: string };
    transaction_digest?: string;
    error?: { code: string; message: string };
  }[];
};

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args });

/** A ready checkout made with the bridge's flat tools (platform key); returns its id. */
const readyCheckout = async (client: Client, store: Store, variantId: string, quantity = 1) => {
  const created = resultJson(
    await call(client, "create_checkout", {
      store_slug: store.slug,
      items: [{ id: variantId, quantity }],
      buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
      shipping_address: ADDRESS,
    }),
  ) as { id: string };
  const ready = resultJson(
    await call(client, "update_checkout", {
      store_slug: store.slug,
      id: created.id,
      shipping_method_id: "standard",
    }),
  ) as { id: string; status: string; messages?: unknown };
  assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready));
  return ready.id;
};

/** The buyer's allowance for `agent`, signed by their wallet and kept by the service (as the wallet page does). */
const allowanceFor = async (agent: BuyerAgent, overrides: Parameters<typeof signAllowance>[2] = {}) => {
  const envelope = await signAllowance(agent.wallet, agent.clientId, overrides);
  const saved = await saveIntentMandate({
    buyerId: agent.buyerId,
    buyerAddress: agent.wallet.address,
    clientId: agent.clientId,
    envelope,
    now: new Date(),
  });
  return saved.id;
};

/** A crypto store, a funded buyer with a linked agent and an allowance, and a bridge client with key + bearer. */
const setup = async (storeOptions: Parameters<typeof seedCryptoStore>[0] = {}) => {
  const shop = await seedCryptoStore(storeOptions);
  const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
  const mandateId = await allowanceFor(agent);
  const client = await connectBridge(options(), { "x-api-key": apiKey, authorization: agent.bearer });
  return { ...shop, agent, mandateId, client };
};

const received = async (address: string) => balances(sandboxUrl(), address);
const ordersOf = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

/** Each coin's total over the quote's legs, by normalized coin type. */
const legsByCoin = (legs: Quote["legs"]) => {
  const out = new Map<string, bigint>();
  for (const leg of legs) {
    const coin = normalizeStructTag(leg.coin_type);
    out.set(coin, (out.get(coin) ?? 0n) + BigInt(leg.amount));
  }
  return out;
};

describe("bridge crypto purchase", () => {
  test("quote_purchase → the wallet signs → confirm_purchase → order; the merchant receives exactly the quoted legs; the bearer travels alone", async () => {
    const { store, payout, variantId, agent, mandateId, client } = await setup();
    try {
      const checkoutId = await readyCheckout(client, store, variantId, 2);
      const ref = [{ store_slug: store.slug, checkout_id: checkoutId }];
      seen.length = 0;
      const quoted = await call(client, "quote_purchase", { checkouts: ref });
      const quote = resultJson(quoted) as unknown as Quote;
      assert.ok(!(quoted as { isError?: boolean }).isError, JSON.stringify(quote));
      assert.deepEqual(quote.total, { amount: 5000, currency: "USD", formatted: "$50.00" });
      assert.equal(quote.buyer_address, agent.wallet.address, "taken from the buyer's allowance");
      assert.equal(quote.quote_id, quote.transaction.digest);
      assert.deepEqual(
        quote.legs.map((l) => [l.symbol, l.amount, l.amount_formatted, l.formatted, l.fiat_amount.formatted]),
        [["USDC", "50000000", "50", "50 USDC", "$50.00"]],
      );
      assert.match(quote.continue_url, /^http/);
      assert.match(quote.next_steps, /transaction_digest/);
      const prepares = seen.filter((r) => r.body?.includes('"prepare_checkout_payment"'));
      assert.equal(prepares.length, 1);
      assert.equal(prepares[0]!.headers.authorization, agent.bearer);
      assert.equal(prepares[0]!.headers["x-api-key"], undefined, "the bearer alone (seed §5 rule 1)");

      const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
      assert.equal(digest, quote.quote_id, "signed unchanged: the digest is the quote_id");
      const confirmed = resultJson(
        await call(client, "confirm_purchase", {
          checkouts: ref,
          transaction_digest: digest,
          payment_mandate_id: mandateId,
        }),
      ) as Confirmed;
      assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
      assert.ok(confirmed.results[0]?.order?.id);
      assert.equal(await ordersOf(checkoutId), 1);
      const got = await received(payout);
      for (const [coin, amount] of legsByCoin(quote.legs)) assert.equal(got.get(coin), amount, coin);

      const completes = seen.filter((r) => r.body?.includes('"complete_checkout"'));
      assert.equal(completes.length, 1);
      assert.equal(completes[0]!.headers.authorization, agent.bearer);
      assert.equal(completes[0]!.headers["x-api-key"], undefined);
      const sent = JSON.parse(completes[0]!.body!) as {
        params: { arguments: { checkout: { payment: unknown; ap2: Record<string, string> } } };
      };
      assert.deepEqual(sent.params.arguments.checkout.payment, {
        instruments: [
          { handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } },
        ],
      });
      assert.ok(sent.params.arguments.checkout.ap2.checkout_mandate);
      assert.ok(sent.params.arguments.checkout.ap2.intent_mandate);

      // confirming again reports the order and completes nothing
      const again = resultJson(
        await call(client, "confirm_purchase", { checkouts: ref, transaction_digest: digest }),
      ) as Confirmed;
      assert.equal(again.status, "completed");
      assert.equal(again.results[0]?.already_completed, true);
      assert.equal(again.results[0]?.order?.id, confirmed.results[0]?.order?.id);
      assert.equal(await ordersOf(checkoutId), 1);
    } finally {
      await client.close();
    }
  });

  test("the first complete_checkout answer is lost → the retry reuses the key; one order, the legs paid once", async () => {
    const { store, payout, variantId, agent, mandateId, client } = await setup();
    const keys: string[] = [];
    let dropped = 0;
    const inner = serviceFetch();
    const lossy = await connectBridge(
      options({
        fetch: async (url, init) => {
          const body = typeof init.body === "string" ? init.body : "";
          const isComplete = body.includes('"complete_checkout"');
          if (isComplete) {
            const meta = (JSON.parse(body) as { params: { arguments: { meta: Record<string, string> } } })
              .params.arguments.meta;
            keys.push(meta["idempotency-key"]!);
          }
          const response = await inner(url, init);
          if (isComplete && dropped === 0) {
            dropped++;
            await response.text();
            throw new TypeError("fetch failed: socket hang up");
          }
          return response;
        },
      }),
      { "x-api-key": apiKey, authorization: agent.bearer },
    );
    try {
      const checkoutId = await readyCheckout(client, store, variantId);
      const ref = [{ store_slug: store.slug, checkout_id: checkoutId }];
      const quote = resultJson(await call(lossy, "quote_purchase", { checkouts: ref })) as unknown as Quote;
      const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
      const confirmed = resultJson(
        await call(lossy, "confirm_purchase", {
          checkouts: ref,
          payment_method: "crypto",
          transaction_digest: digest,
          payment_mandate_id: mandateId,
          quote_id: quote.quote_id,
        }),
      ) as Confirmed;
      assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
      assert.equal(keys.length, 2, "one retry");
      assert.equal(keys[0], keys[1], "the retry carries the same idempotency key");
      assert.equal(await ordersOf(checkoutId), 1);
      const got = await received(payout);
      for (const [coin, amount] of legsByCoin(quote.legs)) assert.equal(got.get(coin), amount, coin);
    } finally {
      await lossy.close();
      await client.close();
    }
  });

  test("a digest not final yet → pending with the digest and no invitation to pay; confirming again with it completes once", async () => {
    const { store, variantId, agent, client } = await setup();
    try {
      const checkoutId = await readyCheckout(client, store, variantId);
      const ref = [{ store_slug: store.slug, checkout_id: checkoutId }];
      const quote = resultJson(await call(client, "quote_purchase", { checkouts: ref })) as unknown as Quote;
      const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
      await hideDigest(sandboxUrl(), digest, 1);
      // no payment_mandate_id: the newest allowance of the buyer for this agent
      const pending = resultJson(
        await call(client, "confirm_purchase", { checkouts: ref, transaction_digest: digest }),
      ) as Confirmed;
      assert.equal(pending.status, "pending", JSON.stringify(pending));
      assert.equal(pending.results[0]?.status, "pending");
      assert.equal(pending.results[0]?.transaction_digest, digest);
      assert.equal(pending.results[0]?.error?.code, "payment_pending");
      assert.match(pending.message, /Do NOT pay again/);
      assert.ok(pending.message.includes(digest));
      assert.equal(await ordersOf(checkoutId), 0);

      const retried = resultJson(
        await call(client, "confirm_purchase", { checkouts: ref, transaction_digest: digest }),
      ) as Confirmed;
      assert.equal(retried.status, "completed", JSON.stringify(retried));
      assert.equal(await ordersOf(checkoutId), 1);
    } finally {
      await client.close();
    }
  });

  test("bad input: 0 or 6 checkouts, two of one store, an unknown store, a coin the store does not take, card, no bearer, no allowance → tool errors with the argument's JSONPath", async () => {
    const { store, variantId, agent, client } = await setup({ coins: ["USDC", "SUI"] });
    const keyOnly = await connectBridge(options(), { "x-api-key": apiKey });
    const fresh = await linkBuyerAgent(cimd, await newWallet(), undefined, undefined, { allowance: false });
    const noAllowance = await connectBridge(options(), { "x-api-key": apiKey, authorization: fresh.bearer });
    try {
      const checkoutId = await readyCheckout(client, store, variantId);
      const ref = { store_slug: store.slug, checkout_id: checkoutId };
      const refusal = async (c: Client, name: string, args: Record<string, unknown>) => {
        const error = toolError(await call(c, name, args));
        return [error.code, error.path];
      };
      const six = Array.from({ length: 6 }, (_, i) => ({ store_slug: `s${i}`, checkout_id: `c${i}` }));
      assert.deepEqual(await refusal(client, "quote_purchase", { checkouts: [] }), [
        "invalid_request",
        "$.checkouts",
      ]);
      assert.deepEqual(await refusal(client, "quote_purchase", { checkouts: six }), [
        "invalid_request",
        "$.checkouts",
      ]);
      assert.deepEqual(
        await refusal(client, "quote_purchase", {
          checkouts: [ref, { store_slug: store.slug, checkout_id: "chk_other" }],
        }),
        ["invalid_request", "$.checkouts[1].store_slug"],
      );
      assert.deepEqual(
        await refusal(client, "quote_purchase", {
          checkouts: [{ store_slug: "no-such-store-here", checkout_id: checkoutId }],
        }),
        ["store_not_found", "$.checkouts[0].store_slug"],
      );
      assert.deepEqual(
        await refusal(client, "quote_purchase", {
          checkouts: [{ store_slug: store.slug, checkout_id: "chk_nope" }],
        }),
        ["not_found", "$.checkouts[0].checkout_id"],
      );
      assert.deepEqual(await refusal(client, "quote_purchase", { checkouts: [ref], pay_with: "USDT" }), [
        "unsupported_coin",
        "$.pay_with",
      ]);
      assert.deepEqual(
        await refusal(client, "quote_purchase", { checkouts: [ref], payment_method: "card" }),
        ["unsupported_payment_method", "$.payment_method"],
      );
      // the handler id from ucp.payment_handlers names the rail as well as the short name
      assert.deepEqual(
        await refusal(client, "quote_purchase", { checkouts: [ref], payment_method: "svc.card" }),
        ["unsupported_payment_method", "$.payment_method"],
      );
      // an incomplete checkout: the refusal names what is missing, each with its JSONPath in the checkout
      const bare = resultJson(
        await call(client, "create_checkout", {
          store_slug: store.slug,
          items: [{ id: variantId, quantity: 1 }],
          shipping_address: ADDRESS,
        }),
      ) as { id: string; status: string };
      assert.equal(bare.status, "incomplete");
      const incomplete = toolError(
        await call(client, "quote_purchase", {
          checkouts: [{ store_slug: store.slug, checkout_id: bare.id }],
          payment_method: "svc.crypto",
        }),
      ) as { code: string; message: string; path?: string; missing?: { path: string }[] };
      assert.deepEqual([incomplete.code, incomplete.path], ["checkout_not_modifiable", "$.checkouts[0]"]);
      const missing = incomplete.missing?.map((m) => m.path) ?? [];
      for (const path of ["$.buyer.email", "$.buyer.first_name", "$.buyer.last_name"]) {
        assert.ok(missing.includes(path), JSON.stringify(incomplete));
        assert.ok(incomplete.message.includes(path), incomplete.message);
      }
      assert.deepEqual(await refusal(keyOnly, "quote_purchase", { checkouts: [ref] }), [
        "identity_required",
        "$",
      ]);
      // a buyer with no allowance and no buyer_address: the bridge cannot know the wallet
      assert.deepEqual(await refusal(noAllowance, "quote_purchase", { checkouts: [ref] }), [
        "buyer_address_required",
        "$.buyer_address",
      ]);

      // confirm_purchase
      assert.deepEqual(
        await refusal(client, "confirm_purchase", {
          checkouts: [ref],
          payment_method: "card",
          transaction_digest: "abc",
        }),
        ["invalid_request", "$.transaction_digest"],
      );
      assert.deepEqual(
        await refusal(keyOnly, "confirm_purchase", { checkouts: [ref], transaction_digest: "abc" }),
        ["identity_required", "$.payment_method"],
      );
      // no allowance: the bridge invents no code of its own, the service's answer for that checkout is relayed
      // (here: this buyer cannot see a checkout another buyer's quote bound)
      const unallowed = resultJson(
        await call(noAllowance, "confirm_purchase", { checkouts: [ref], transaction_digest: "abc" }),
      ) as { status: string; results: { error?: { code: string; path?: string } }[] };
      assert.equal(unallowed.status, "failed");
      assert.deepEqual(
        [unallowed.results[0]?.error?.code, unallowed.results[0]?.error?.path],
        ["not_found", "$.id"],
      );
      assert.deepEqual(
        await refusal(client, "confirm_purchase", {
          checkouts: [ref],
          transaction_digest: "abc",
          payment_mandate_id: "im_unknown_allowance",
        }),
        ["not_found", "$.payment_mandate_id"],
      );
      assert.equal(await ordersOf(checkoutId), 0);
      assert.equal(agent.bearer.startsWith("Bearer "), true);
    } finally {
      await noAllowance.close();
      await keyOnly.close();
      await client.close();
    }
  });

  test("card with payment_mandate_id: the allowance's per-order maximum holds (nothing charged over it); under it the intent mandate travels with the completion", async () => {
    const shop = await seedCryptoStore({ card: true, priceMinor: 4000 });
    const agent = await linkBuyerAgent(cimd, await newWallet());
    const small = await allowanceFor(agent, { per_order_max: 3000 });
    const large = await allowanceFor(agent, { per_order_max: 10_000 });
    const client = await connectBridge(options(), { "x-api-key": apiKey, authorization: agent.bearer });
    try {
      const checkoutId = await readyCheckout(client, shop.store, shop.variantId);
      const ref = [{ store_slug: shop.store.slug, checkout_id: checkoutId }];
      const over = resultJson(
        await call(client, "confirm_purchase", {
          checkouts: ref,
          payment_method: "card",
          pay_with: "pm_card_visa",
          payment_mandate_id: small,
        }),
      ) as Confirmed;
      assert.equal(over.status, "failed", JSON.stringify(over));
      assert.equal(over.results[0]?.error?.code, "spend_cap_exceeded");
      assert.equal(await ordersOf(checkoutId), 0);

      seen.length = 0;
      const paid = resultJson(
        await call(client, "confirm_purchase", {
          checkouts: ref,
          payment_method: "card",
          pay_with: "pm_card_visa",
          payment_mandate_id: large,
        }),
      ) as Confirmed;
      assert.equal(paid.status, "completed", JSON.stringify(paid));
      assert.equal(await ordersOf(checkoutId), 1);
      const complete = seen.find((r) => r.body?.includes('"complete_checkout"'))!;
      assert.equal(complete.headers["x-api-key"], apiKey, "cards stay on the platform key");
      assert.equal(complete.headers.authorization, undefined);
      assert.ok(
        (
          JSON.parse(complete.body!) as {
            params: { arguments: { checkout: { ap2: Record<string, string> } } };
          }
        ).params.arguments.checkout.ap2.intent_mandate,
      );
      // the allowance was fetched with the bearer alone
      const fetched = seen.find((r) => r.body?.includes('"get_intent_mandate"'))!;
      assert.equal(fetched.headers.authorization, agent.bearer);
      assert.equal(fetched.headers["x-api-key"], undefined);
    } finally {
      await client.close();
    }
  });

  test("two stores, one crypto transaction: quote_purchase (combined) → the wallet signs once → confirm_purchase completes both with the same digest", async () => {
    const a = await seedCryptoStore({ priceMinor: 1200 });
    const b = await seedCryptoStore({ priceMinor: 3400 });
    const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const mandateId = await allowanceFor(agent);
    const client = await connectBridge(options(), { "x-api-key": apiKey, authorization: agent.bearer });
    try {
      const refs = [
        { store_slug: a.store.slug, checkout_id: await readyCheckout(client, a.store, a.variantId) },
        { store_slug: b.store.slug, checkout_id: await readyCheckout(client, b.store, b.variantId) },
      ];
      const quoted = await call(client, "quote_purchase", { checkouts: refs });
      const quote = resultJson(quoted) as unknown as Quote;
      assert.ok(!(quoted as { isError?: boolean }).isError, JSON.stringify(quote));
      assert.ok(quote.group_id);
      assert.equal(quote.quote_id, quote.transaction.digest);
      assert.deepEqual(
        quote.checkouts.map((c) => [c.store_slug, c.total?.amount]),
        [
          [a.store.slug, 1200],
          [b.store.slug, 3400],
        ],
      );
      const digest = await signAndSubmit(agent.wallet, quote.transaction.bytes);
      const confirmed = resultJson(
        await call(client, "confirm_purchase", {
          checkouts: refs,
          transaction_digest: digest,
          payment_mandate_id: mandateId,
        }),
      ) as Confirmed;
      assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
      assert.equal(await ordersOf(refs[0]!.checkout_id), 1);
      assert.equal(await ordersOf(refs[1]!.checkout_id), 1);
      const usdc = (m: Map<string, bigint>) =>
        [...m.entries()].find(([coin]) => coin.endsWith("::usdc::USDC"))?.[1] ?? 0n;
      assert.equal(usdc(await received(a.payout)), 12_000_000n);
      assert.equal(usdc(await received(b.payout)), 34_000_000n);
    } finally {
      await client.close();
    }
  });
});
