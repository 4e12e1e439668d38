import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { agentPurchasesOf } from "@/lib/buyers/agent-purchases";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { saveIntentMandate } from "@/lib/mandates/intent-mandates";

import { seedPlatformKey } from "../../factories";
import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import {
  ADDRESS,
  bearerHeaders,
  completeWithDigest,
  createCryptoCheckout,
  linkBuyerAgent,
  newWallet,
  prepareWithBearer,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  signedProfile,
  USDC_UNIT,
  type BuyerAgent,
} from "../../helpers/crypto-purchase";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import type { Checkout } from "../checkout/helpers";

// The buyer's purchases per agent (lib/buyers/agent-purchases.ts), the data of the spend-cap page: one agent buys
// for the buyer by card with the buyer's bearer and by crypto; a platform's card completion carrying the buyer's
// allowance counts too; an order with no ledger entry (placed before every buyer-bound purchase had to count) is
// still listed, marked as counted against no allowance; the ledger's spent per window equals the purchases it
// counted; a platform's own purchase and another buyer's are never listed.

let cimd: CimdServer;
let apiKey = "";
let shop: Awaited<ReturnType<typeof seedCryptoStore>>;

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  apiKey = (await seedPlatformKey(["purchase:complete"])).key;
  shop = await seedCryptoStore({ card: true, priceMinor: 2500 });
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

type Completed = Checkout & { order?: { id: string } };

const total = (c: Checkout) => c.totals.find((t) => t.type === "total")!.amount;

/** The agent checks out with the buyer's bearer and pays by card, carrying the buyer's allowance (or not). */
const buyByCardWithBearer = async (
  store: Store,
  agent: BuyerAgent,
  variantId: string,
  intent: string | null,
) => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: await bearerHeaders(agent.bearer),
    body: {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
      shipping_address: ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  const body = await cardCompletionBody(
    created.body,
    store.slug,
    (await signedProfile()).signer,
    "pm_card_visa",
  );
  const done = await rest<Completed>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${created.body.id}/complete`,
    {
      headers: await bearerHeaders(agent.bearer),
      body: intent ? { ...body, ap2: { ...body.ap2, intent_mandate: intent } } : body,
    },
  );
  assert.equal(done.body.status, "completed", done.text);
  return { orderId: done.body.order!.id, total: total(done.body) };
};

/** A platform-key card completion, with the buyer's allowance (the buyer's spend) or without (the platform's). */
const buyByCardWithKey = async (intent: string | null) => {
  const checkout = await createCryptoCheckout(shop.store, apiKey, shop.variantId);
  const { url, signer } = await signedProfile();
  const body = await cardCompletionBody(checkout, shop.store.slug, signer, "pm_card_visa");
  const done = await rest<Completed>(
    "POST",
    `/s/${shop.store.slug}/checkout-sessions/${checkout.id}/complete`,
    {
      headers: { "x-api-key": apiKey, "ucp-agent": `profile="${url}"`, "idempotency-key": randomUUID() },
      body: intent ? { ...body, ap2: { ...body.ap2, intent_mandate: intent } } : body,
    },
  );
  assert.equal(done.body.status, "completed", done.text);
  return { orderId: done.body.order!.id, total: total(done.body) };
};

/** The agent prepares with the buyer's bearer (binding the checkout), the wallet pays, the agent completes. */
const buyByCrypto = async (agent: BuyerAgent) => {
  const checkout = await createCryptoCheckout(shop.store, apiKey, shop.variantId);
  const prepared = await prepareWithBearer(shop.store.slug, checkout.id, agent);
  assert.equal(prepared.status, 200, prepared.text);
  const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
  const done = await completeWithDigest(shop.store.slug, checkout, agent, digest, null);
  assert.equal(done.body.status, "completed", done.text);
  return { orderId: done.body.order!.id, total: total(done.body) };
};

describe("agentPurchasesOf — a buyer's purchases per agent", () => {
  test("card with the buyer's bearer, crypto, a platform completion carrying the allowance, and an order with no ledger entry: all listed per agent with rail, store and amount; the ledger's spent equals the purchases it counted", async () => {
    const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [500n * USDC_UNIT] }));
    const envelope = await signAllowance(agent.wallet, agent.clientId, { limits: { day: 100_000 } });
    const allowance = await saveIntentMandate({
      buyerId: agent.buyerId,
      buyerAddress: agent.wallet.address,
      clientId: agent.clientId,
      envelope,
      now: new Date(),
    });
    const before = await agentPurchasesOf(agent.buyerId, new Date());
    assert.equal(before.agents.length, 1);
    assert.equal(before.agents[0]!.clientName, "Crypto test agent", "the agent's name, not its client id");
    assert.deepEqual(before.agents[0]!.purchases, []);

    const card = await buyByCardWithBearer(shop.store, agent, shop.variantId, envelope);
    const legacy = await buyByCardWithBearer(shop.store, agent, shop.variantId, envelope);
    // an order placed before every buyer-bound purchase counted against an allowance: it has no ledger entry
    const db = await getDb();
    const dropped = await db.spendEntry.deleteMany({ where: { kind: "debit", orderId: legacy.orderId } });
    assert.equal(dropped.count, 1);
    const crypto = await buyByCrypto(agent);
    const platformWithAllowance = await buyByCardWithKey(envelope);
    await buyByCardWithKey(null); // the platform's own purchase: nobody's spend
    const stranger = await linkBuyerAgent(cimd, await newWallet());

    const { agents, own } = await agentPurchasesOf(agent.buyerId, new Date());
    assert.deepEqual(own, []);
    assert.equal(agents.length, 1);
    const [mine] = agents as [(typeof agents)[0]];
    assert.equal(mine.linked, true);
    assert.deepEqual(
      mine.purchases.map((p) => [
        p.orderId,
        p.paidWith,
        p.amountMinor,
        p.currency,
        p.store.name,
        p.allowanceId,
      ]),
      [
        [
          platformWithAllowance.orderId,
          "Card",
          platformWithAllowance.total,
          "USD",
          shop.store.name,
          allowance.id,
        ],
        [crypto.orderId, "Crypto (USDC)", crypto.total, "USD", shop.store.name, allowance.id],
        [legacy.orderId, "Card", legacy.total, "USD", shop.store.name, null],
        [card.orderId, "Card", card.total, "USD", shop.store.name, allowance.id],
      ],
    );
    const everything = card.total + legacy.total + crypto.total + platformWithAllowance.total;
    assert.deepEqual(mine.spent, [{ currency: "USD", amountMinor: everything }]);
    const [view] = mine.allowances;
    assert.equal(view?.id, allowance.id);
    const counted = mine.purchases.filter((p) => p.allowanceId).reduce((s, p) => s + p.amountMinor, 0);
    const day = view!.windows.find((w) => w.name === "day")!;
    assert.equal(day.spent, counted, "the ledger's spent is exactly the purchases it counted");
    assert.equal(day.remaining, 100_000 - counted);

    // another buyer sees none of it
    const theirs = await agentPurchasesOf(stranger.buyerId, new Date());
    assert.ok(theirs.agents.every((a) => !a.purchases.some((p) => p.orderId === card.orderId)));
  });
});
