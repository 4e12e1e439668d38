import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { JWK } from "jose";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// The checkout mandate covers the shipment and the buyer (DECISIONS B5 as amended): an agent signs the terms of
// a ready checkout, then the checkout changes — its destination, its shipping option, the buyer's email — and the
// completion with the mandate signed before the change is refused with mandate_invalid_signature before any money
// moves: no PaymentIntent at the provider, no order. Re-signing the new terms completes. REST and MCP.

let store: Store;
let key: string;
let variant: string;
let signedProfile: string;
let signer: { kid: string; privateJwk: JWK };
let mcp: McpClient;

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  signer = profiles.agentKey as never;
  store = await seedStore();
  variant = (await seedProduct(store, { variants: [{ priceMinor: 3000, inventory: 100 }] })).variants[0]!.id;
  await seedShippingRates(store, [
    { code: "standard", title: "Standard", priceMinor: 500 },
    { code: "express", title: "Express", priceMinor: 500 },
  ]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
  mcp = await connectMcpClient(`/s/${store.slug}/mcp`, {
    headers: { "x-api-key": key, "ucp-agent": `profile="${signedProfile}"` },
  });
});
after(async () => {
  await mcp.close();
  await closeTestDatabase();
});

const headers = () => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const readyCheckout = async () => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: [{ item: { id: variant }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  return created.body;
};

const update = async (id: string, body: Record<string, unknown>) => {
  const updated = await rest<Checkout>("PUT", `/s/${store.slug}/checkout-sessions/${id}`, {
    headers: headers(),
    body,
  });
  assert.equal(updated.body.status, "ready_for_complete", updated.text);
  return updated.body;
};

/** What the provider and the database hold for the checkout: nothing, when the refusal came first. */
const moneyOf = async (checkoutId: string) => ({
  intents: (await stripeSandbox()).paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId)
    .length,
  orders: await (await getDb()).order.count({ where: { checkoutId } }),
});

// Each change, and how the refusal names it: the mandate verifies over the checkout's earlier terms, so the
// message says exactly what changed since signing.
const CHANGES: [string, Record<string, unknown>, RegExp][] = [
  [
    "the destination",
    { shipping_address: { ...SEED_ADDRESS, line1: "9 Elsewhere Rd" } },
    /since then fulfillment\.destination\.street_address "[^"]+" → "9 Elsewhere Rd"/,
  ],
  [
    "the shipping option",
    { shipping_method_id: "express" },
    /since then fulfillment\.option "standard" → "express"/,
  ],
  [
    "the buyer's email",
    { buyer: { ...BUYER, email: "mallory@example.com" } },
    /since then buyer\.email "[^"]+" → "mallory@example\.com"/,
  ],
];

describe("REST", () => {
  for (const [what, change, named] of CHANGES) {
    test(`${what} changed after signing (same total): refused before any charge, naming the change; re-signed, it completes`, async () => {
      const c = await readyCheckout();
      const signedBefore = await cardCompletionBody(c, store.slug, signer, "pm_card_visa");
      const changed = await update(c.id, change);
      assert.deepEqual(changed.totals, c.totals, "the change keeps every total: only the new terms catch it");
      const refused = await rest<{ messages: { code: string; content: string }[] }>(
        "POST",
        `/s/${store.slug}/checkout-sessions/${c.id}/complete`,
        { headers: headers(), body: signedBefore },
      );
      assert.equal(refused.body.messages[0]?.code, "mandate_invalid_signature", refused.text);
      assert.match(refused.body.messages[0]!.content, /signed over an earlier version of this checkout/);
      assert.match(refused.body.messages[0]!.content, named);
      assert.deepEqual(await moneyOf(c.id), { intents: 0, orders: 0 });
      const resigned = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions/${c.id}/complete`, {
        headers: headers(),
        body: await cardCompletionBody(changed, store.slug, signer, "pm_card_visa"),
      });
      assert.equal(resigned.body.status, "completed", resigned.text);
      assert.deepEqual(await moneyOf(c.id), { intents: 1, orders: 1 });
    });
  }
});

describe("MCP", () => {
  test("the destination changed after signing: complete_checkout refused, nothing charged", async () => {
    const c = await readyCheckout();
    const signedBefore = await cardCompletionBody(c, store.slug, signer, "pm_card_visa");
    await update(c.id, { shipping_address: { ...SEED_ADDRESS, line1: "9 Elsewhere Rd" } });
    const answer = await mcp
      .callTool({
        name: "complete_checkout",
        arguments: {
          meta: { ...toolMeta(randomUUID()), "ucp-agent": { profile: signedProfile } },
          id: c.id,
          checkout: signedBefore,
        },
      })
      .then(
        (result) => JSON.stringify(result.structuredContent),
        (error: Error) => error.message,
      );
    assert.match(answer, /mandate_invalid_signature/);
    assert.match(answer, /since then fulfillment\.destination\.street_address/);
    assert.deepEqual(await moneyOf(c.id), { intents: 0, orders: 0 });
  });
});
