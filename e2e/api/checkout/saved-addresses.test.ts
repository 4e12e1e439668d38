import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { JWK } from "jose";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { updateAgentRequestPolicy } from "@/lib/stores/agent-request-policy";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { assertCheckoutSchema, BUYER, SEED_ADDRESS, type Checkout } from "./helpers";

// Saved addresses (Store.rememberAddresses): a complete address an agent sends for a buyer's e-mail is kept under
// that agent's key and offered back to that agent only, in the buyer's next checkout at the store; choosing one
// ships there and the mandate signs it. A store that keeps none keeps none; another caller naming the same
// e-mail is offered nothing; a refused request saves nothing. REST and MCP (the bridge: bridge-purchase.test.ts).

let store: Store;
let forgetful: Store;
let key: string;
let otherKey: string;
let variant: string;
let forgetfulVariant: string;
let signedProfile: string;
let signer: { kid: string; privateJwk: JWK };
let mcp: McpClient;

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  signer = profiles.agentKey as never;
  const db = await getDb();
  store = await seedStore();
  store = await db.store.update({ where: { id: store.id }, data: { rememberAddresses: true } });
  forgetful = await seedStore();
  variant = (await seedProduct(store, { variants: [{ priceMinor: 3000, inventory: 100 }] })).variants[0]!.id;
  forgetfulVariant = (await seedProduct(forgetful, { variants: [{ priceMinor: 3000, inventory: 100 }] }))
    .variants[0]!.id;
  for (const s of [store, forgetful]) {
    await seedShippingRates(s, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  }
  key = (await seedPlatformKey(["purchase:complete"])).key;
  otherKey = (await seedPlatformKey(["purchase:complete"])).key;
  mcp = await connectMcpClient(`/s/${store.slug}/mcp`, {
    headers: { "x-api-key": key, "ucp-agent": `profile="${signedProfile}"` },
  });
});
after(async () => {
  await mcp.close();
  await closeTestDatabase();
});

const headers = (apiKey = key) => ({
  "x-api-key": apiKey,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
});

const create = async (body: Record<string, unknown>, { s = store, apiKey = key } = {}) => {
  const res = await rest<Checkout>("POST", `/s/${s.slug}/checkout-sessions`, {
    headers: headers(apiKey),
    body: { line_items: [{ item: { id: s === store ? variant : forgetfulVariant }, quantity: 1 }], ...body },
  });
  assert.equal(res.status, 201, res.text);
  assertCheckoutSchema(res.body);
  return res.body;
};

const update = (id: string, body: Record<string, unknown>) =>
  rest<Checkout>("PUT", `/s/${store.slug}/checkout-sessions/${id}`, { headers: headers(), body });

const methodOf = (c: Checkout) =>
  c.fulfillment.methods[0] as unknown as {
    destinations: ({ id: string } & Record<string, string>)[];
    selected_destination_id: string | null;
  };
const ASK_FOR_SHIPPING = { fulfillment: { methods: [{ type: "shipping" }] } };
const savedRows = async (email: string) =>
  (await getDb()).savedAddress.findMany({ where: { email }, orderBy: { createdAt: "asc" } });

describe("REST", () => {
  test("an address sent with the buyer's e-mail is saved; their next checkout offers it, choosing it ships there and the charge is the order total", async () => {
    const email = `ada.${randomUUID()}@example.com`;
    const first = await create({ buyer: { ...BUYER, email }, shipping_address: SEED_ADDRESS });
    const [saved] = await savedRows(email);
    assert.ok(saved, "the address was kept");
    assert.equal(methodOf(first).destinations[0]!.id, saved.id, "the checkout names it by its saved id");
    assert.equal(saved.storeId, store.id);

    // the e-mail in another case is the same buyer
    const second = await create({ buyer: { ...BUYER, email: email.toUpperCase() }, ...ASK_FOR_SHIPPING });
    assert.deepEqual(
      methodOf(second).destinations.map((d) => [d.id, d.street_address, d.postal_code]),
      [[saved.id, SEED_ADDRESS.line1, SEED_ADDRESS.postal_code]],
    );
    assert.equal(methodOf(second).selected_destination_id, null);
    assert.equal(second.status, "incomplete");
    assert.ok(
      second.messages.some(
        (m) => m.path === "$.fulfillment.methods[0].destinations" && m.content.includes(saved.id),
      ),
      JSON.stringify(second.messages),
    );

    const chosen = await update(second.id, {
      fulfillment: {
        methods: [
          {
            type: "shipping",
            selected_destination_id: saved.id,
            groups: [{ selected_option_id: "standard" }],
          },
        ],
      },
    });
    assert.equal(chosen.body.status, "ready_for_complete", chosen.text);
    assert.equal(methodOf(chosen.body).selected_destination_id, saved.id);
    const completed = await rest<Checkout>(
      "POST",
      `/s/${store.slug}/checkout-sessions/${second.id}/complete`,
      {
        headers: headers(),
        body: await cardCompletionBody(chosen.body, store.slug, signer, "pm_card_visa"),
      },
    );
    assert.equal(completed.body.status, "completed", completed.text);
    const order = await (await getDb()).order.findFirstOrThrow({ where: { checkoutId: second.id } });
    assert.equal(
      (order.fulfillment as { destination: { street_address: string } }).destination.street_address,
      SEED_ADDRESS.line1,
    );
    const charged = (await stripeSandbox())
      .paymentIntents()
      .filter((pi) => pi.metadata.checkout_id === second.id && pi.status === "succeeded")
      .map((pi) => pi.amount);
    assert.deepEqual(charged, [3500]);
    assert.deepEqual(
      (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount,
      3500,
    );
    assert.equal((await savedRows(email)).length, 1, "nothing new was saved by choosing it");
  });

  test("the same address sent again without an id keeps its saved id; another buyer's e-mail drops the addresses offered for the first", async () => {
    const email = `again.${randomUUID()}@example.com`;
    const first = await create({ buyer: { ...BUYER, email }, shipping_address: SEED_ADDRESS });
    const savedId = methodOf(first).destinations[0]!.id;
    const resent = await update(first.id, {
      fulfillment: {
        methods: [
          { type: "shipping", destinations: [{ ...methodOf(first).destinations[0], id: undefined }] },
        ],
      },
    });
    assert.equal(resent.status, 200, resent.text);
    assert.deepEqual(
      methodOf(resent.body).destinations.map((d) => d.id),
      [savedId],
    );

    const offered = await create({ buyer: { ...BUYER, email }, ...ASK_FOR_SHIPPING });
    assert.deepEqual(
      methodOf(offered).destinations.map((d) => d.id),
      [savedId],
    );
    const someoneElse = await update(offered.id, { buyer: { email: `other.${randomUUID()}@example.com` } });
    assert.equal(someoneElse.status, 200, someoneElse.text);
    assert.deepEqual(methodOf(someoneElse.body).destinations, []);
    assert.equal((await savedRows(email)).length, 1);
  });

  test("another caller naming the same e-mail is offered nothing; a store that keeps no addresses keeps none", async () => {
    const email = `grace.${randomUUID()}@example.com`;
    await create({ buyer: { ...BUYER, email }, shipping_address: SEED_ADDRESS });
    assert.equal((await savedRows(email)).length, 1);
    const stranger = await create({ buyer: { ...BUYER, email }, ...ASK_FOR_SHIPPING }, { apiKey: otherKey });
    assert.deepEqual(methodOf(stranger).destinations, []);

    const elsewhere = await create(
      { buyer: { ...BUYER, email }, shipping_address: SEED_ADDRESS },
      { s: forgetful },
    );
    assert.equal(methodOf(elsewhere).destinations[0]!.id, "dest_1");
    assert.equal(await (await getDb()).savedAddress.count({ where: { storeId: forgetful.id } }), 0);
    const asked = await create({ buyer: { ...BUYER, email }, ...ASK_FOR_SHIPPING }, { s: forgetful });
    assert.deepEqual(methodOf(asked).destinations, []);
  });

  test("a refused request saves nothing: an update refused at validation, and one to a completed checkout", async () => {
    const email = `refused.${randomUUID()}@example.com`;
    const c = await create({ buyer: { ...BUYER, email } });
    const refused = await update(c.id, {
      shipping_address: SEED_ADDRESS,
      line_items: [{ item: { id: variant }, quantity: 0 }],
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((await savedRows(email)).length, 0);

    const ready = await update(c.id, { shipping_address: SEED_ADDRESS, shipping_method_id: "standard" });
    assert.equal(ready.body.status, "ready_for_complete", ready.text);
    assert.equal((await savedRows(email)).length, 1);
    const completed = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions/${c.id}/complete`, {
      headers: headers(),
      body: await cardCompletionBody(ready.body, store.slug, signer, "pm_card_visa"),
    });
    assert.equal(completed.body.status, "completed", completed.text);
    const late = await update(c.id, { shipping_address: { ...SEED_ADDRESS, line1: "2 Other St" } });
    assert.match(late.text, /"code":"checkout_not_modifiable"/);
    assert.equal((await savedRows(email)).length, 1);
  });

  test("an address without street, city or postal code is not kept; the merchant turning the setting off forgets every saved one", async () => {
    const email = `partial.${randomUUID()}@example.com`;
    await create({
      buyer: { ...BUYER, email },
      fulfillment: { methods: [{ type: "shipping", destinations: [{ address_country: "US" }] }] },
    });
    assert.equal((await savedRows(email)).length, 0);
    const other = await seedStore();
    const db = await getDb();
    const kept = await db.store.update({ where: { id: other.id }, data: { rememberAddresses: true } });
    await db.savedAddress.create({
      data: {
        id: `addr_${randomUUID()}`,
        storeId: kept.id,
        principalId: "key:someone",
        email,
        fingerprint: "f",
        address: { street_address: "1 Main St", address_country: "US" },
      },
    });
    const off = await updateAgentRequestPolicy(kept, {
      agentCancellations: kept.agentCancellations,
      rememberAddresses: "off",
    });
    assert.equal(off.rememberAddresses, false);
    assert.equal(await db.savedAddress.count({ where: { storeId: kept.id } }), 0);
    assert.ok(
      (await db.savedAddress.count({ where: { storeId: store.id } })) > 0,
      "other stores keep theirs",
    );
  });
});

describe("races", () => {
  test("two checkouts sending one new address at once: one saved row, offered once; each checkout keeps the id it was told", async () => {
    const email = `race.${randomUUID()}@example.com`;
    const both = await Promise.all(
      [0, 1].map(() => create({ buyer: { ...BUYER, email }, shipping_address: SEED_ADDRESS })),
    );
    const rows = await savedRows(email);
    assert.equal(rows.length, 1);
    const told = both.map((c) => methodOf(c).destinations[0]!.id);
    assert.ok(told.includes(rows[0]!.id), `one of ${told.join(", ")} is the saved ${rows[0]!.id}`);
    for (const c of both) {
      const read = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${c.id}`, {
        headers: { "x-api-key": key, "ucp-agent": `profile="${signedProfile}"` },
      });
      assert.equal(methodOf(read.body).destinations[0]!.id, methodOf(c).destinations[0]!.id);
    }
    const offered = await create({ buyer: { ...BUYER, email }, ...ASK_FOR_SHIPPING });
    assert.deepEqual(
      methodOf(offered).destinations.map((d) => d.id),
      [rows[0]!.id],
    );
  });
});

describe("MCP", () => {
  test("the same offer over create_checkout and update_checkout, and the choice", async () => {
    const email = `mcp.${randomUUID()}@example.com`;
    await create({ buyer: { ...BUYER, email }, shipping_address: SEED_ADDRESS });
    const [saved] = await savedRows(email);
    const call = async (name: string, args: Record<string, unknown>) =>
      (
        await mcp.callTool({
          name,
          arguments: {
            meta: { ...toolMeta(randomUUID()), "ucp-agent": { profile: signedProfile } },
            ...args,
          },
        })
      ).structuredContent as Checkout;
    const created = await call("create_checkout", {
      checkout: {
        line_items: [{ item: { id: variant }, quantity: 1 }],
        buyer: { ...BUYER, email },
        ...ASK_FOR_SHIPPING,
      },
    });
    assertCheckoutSchema(created);
    assert.deepEqual(
      methodOf(created).destinations.map((d) => d.id),
      [saved!.id],
    );
    const chosen = await call("update_checkout", {
      id: created.id,
      checkout: { fulfillment: { methods: [{ type: "shipping", selected_destination_id: saved!.id }] } },
    });
    assert.equal(methodOf(chosen).selected_destination_id, saved!.id);
    assert.equal(methodOf(chosen).destinations[0]!.street_address, SEED_ADDRESS.line1);
  });
});
