import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { JWK } from "jose";

import { getDb, getDbHandle } from "@/lib/config/db";
import { getBaseUrl, getEnv } from "@/lib/config/env";
import { revokeApiKey } from "@/lib/credentials/manage-api-keys";
import type { Store } from "@/lib/generated/prisma/client";
import { buyerWalletOf } from "@/lib/mandates/buyer-spend";
import { createOAuthClient, revokeOAuthClient } from "@/lib/oauth/create-oauth-client";
import { issueAccessToken } from "@/lib/oauth/tokens";
import { verifyAccessToken } from "@/lib/oauth/verify-access-token";

import { seedBuyer, seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { mcpCall, rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { statementsOf } from "../../helpers/sql-statements";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "../checkout/helpers";

// The rows the service keeps in memory (lib/config/row-cache.ts: platform keys by prefix; stores and shipping rates
// for reads only) are never staler than the stated bound: a change made through this instance is seen by its next
// call, and a change made elsewhere (another instance: here a connection that bypasses this process's Prisma client)
// within ROW_CACHE_TTL_MS. The bound is short here so the test need not wait the production 2 s.

const TTL_MS = 300;
process.env.ROW_CACHE_TTL_MS = String(TTL_MS);

let store: Store;
let sock: { id: string };

before(async () => {
  await prepareTestDatabase();
  assert.equal(getEnv().ROW_CACHE_TTL_MS, TTL_MS, "the short bound is in force");
  store = await seedStore({ taxRateBps: 0 });
  sock = (await seedProduct(store, { variants: [{ priceMinor: 1000, inventory: 100 }] })).variants[0]!;
});
after(closeTestDatabase);

/** A statement from "another instance": not through this process's Prisma client, so no local invalidation. */
const elsewhere = async (sql: string) => {
  const adapter = await (await getDbHandle()).handle.factory.connect();
  try {
    await adapter.executeScript(sql);
  } finally {
    await adapter.dispose();
  }
};

const createCheckout = (key: string) =>
  rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: sock.id }, quantity: 1 }] },
  });

/** Calls `probe` until `seen` holds; returns how long that took (ms), failing past `limitMs`. */
const seenWithin = async <T>(probe: () => Promise<T>, seen: (value: T) => boolean, limitMs: number) => {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    const elapsed = performance.now() - started;
    if (seen(value)) return elapsed;
    assert.ok(elapsed < limitMs, `not seen after ${Math.round(elapsed)} ms (bound ${limitMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const taxOf = (checkout: Checkout) => checkout.totals.find((t) => t.type === "tax")?.amount ?? 0;

test("a key revoked through this instance is refused on the next call", async () => {
  const { id, key } = await seedPlatformKey();
  assert.equal((await createCheckout(key)).status, 201); // cached now
  await revokeApiKey(id);
  const refused = await createCheckout(key);
  assert.equal(refused.status, 401, refused.text);
  assert.match(refused.text, /invalid_api_key/);
});

test("a key revoked by another instance is refused within the bound", async () => {
  const { id, key } = await seedPlatformKey();
  // twice: the first call also writes the key's last use, which empties this instance's cache
  assert.equal((await createCheckout(key)).status, 201);
  assert.equal((await createCheckout(key)).status, 201);
  assert.match(id, /^[\w-]+$/);
  await elsewhere(`UPDATE platform_api_keys SET revoked_at = now() WHERE id = '${id}'`);
  const took = await seenWithin(
    () => createCheckout(key),
    (r) => r.status === 401,
    TTL_MS + 500,
  );
  assert.ok(took <= TTL_MS + 500, `refused after ${Math.round(took)} ms`);
});

test("a store changed elsewhere: a call that moves money sees it at once; every other call within the bound", async () => {
  const { key } = await seedPlatformKey();
  assert.equal(taxOf((await createCheckout(key)).body), 0);
  await (await getDb()).store.update({ where: { id: store.id }, data: { taxRateBps: 1000 } });
  assert.equal(taxOf((await createCheckout(key)).body), 100, "this instance sees its own change at once");

  const product = () =>
    rest<{ product?: { id: string } }>("POST", `/s/${store.slug}/catalog/product`, {
      headers: { "x-api-key": key },
      body: { id: sock.id },
    });
  assert.equal((await product()).status, 200); // the store is in this instance's cache now
  assert.match(store.id, /^[\w-]+$/);
  await elsewhere(`UPDATE stores SET tax_rate_bps = 2000 WHERE id = '${store.id}'`);
  // creating a checkout moves no money (the completion prices it again on a fresh store): within the bound
  const taxed = await seenWithin(
    () => createCheckout(key),
    (r) => taxOf(r.body) === 200,
    TTL_MS + 500,
  );
  assert.ok(taxed <= TTL_MS + 500, `another instance's tax rate after ${Math.round(taxed)} ms`);

  // a store's mode decides where money goes, so a call that moves money (cancel: it cancels a payment under
  // way) reads the store fresh; a store removed elsewhere is a store_not_found for it at once, for the others
  // within the bound
  const open = (await createCheckout(key)).body.id; // the store is in this instance's cache again
  await elsewhere(`UPDATE stores SET slug = slug || '-moved' WHERE id = '${store.id}'`);
  const cancel = await rest("POST", `/s/${store.slug}/checkout-sessions/${open}/cancel`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
  });
  assert.equal(cancel.status, 404, `a call that moves money never uses the cached store: ${cancel.text}`);
  const took = await seenWithin(product, (r) => r.status === 404, TTL_MS + 500);
  assert.ok(took <= TTL_MS + 500, `store_not_found after ${Math.round(took)} ms`);
  assert.equal((await createCheckout(key)).status, 404);
  await elsewhere(`UPDATE stores SET slug = '${store.slug}' WHERE id = '${store.id}'`);
});

test("shipping rates: a change here is seen at once; one made elsewhere within the bound by get_checkout and update_checkout", async () => {
  const { key } = await seedPlatformKey();
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  const shipment = {
    buyer: BUYER,
    shipping_address: SEED_ADDRESS,
    shipping_method_id: "standard",
  };
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: sock.id }, quantity: 1 }], ...shipment },
  });
  assert.equal(created.status, 201, created.text);
  const shippingOf = (c: Checkout) => c.totals.find((t) => t.type === "fulfillment")?.amount;
  assert.equal(shippingOf(created.body), 500);
  const path = `/s/${store.slug}/checkout-sessions/${created.body.id}`;
  const get = () => rest<Checkout>("GET", path, { headers: { "x-api-key": key } });
  assert.equal(shippingOf((await get()).body), 500); // the rates are in this instance's cache now
  await (await getDb()).shippingRate.updateMany({ where: { storeId: store.id }, data: { priceMinor: 600 } });
  assert.equal(shippingOf((await get()).body), 600, "this instance sees its own change at once");

  assert.equal(shippingOf((await get()).body), 600); // cached again
  await elsewhere(`UPDATE shipping_rates SET price_minor = 700 WHERE store_id = '${store.id}'`);
  // a read, and an update (the completion prices again on fresh rates), may answer from the cached rates, for at
  // most the bound
  const took = await seenWithin(get, (r) => shippingOf(r.body) === 700, TTL_MS + 500);
  assert.ok(took <= TTL_MS + 500, `the new rate after ${Math.round(took)} ms`);
  const update = () =>
    rest<Checkout>("PUT", path, {
      headers: { "x-api-key": key, "idempotency-key": randomUUID() },
      body: shipment,
    });
  assert.equal(shippingOf((await update()).body), 700);
  await elsewhere(`UPDATE shipping_rates SET price_minor = 800 WHERE store_id = '${store.id}'`);
  const updatedWithin = await seenWithin(update, (r) => shippingOf(r.body) === 800, TTL_MS + 500);
  assert.ok(
    updatedWithin <= TTL_MS + 500,
    `an update priced the new rate after ${Math.round(updatedWithin)} ms`,
  );
});

/** A store with a product and a rate, a platform key that may pay, and a signed agent: checkouts ready to pay. */
const completableShop = async () => {
  const { key } = await seedPlatformKey(["purchase:complete"]);
  const shop = await seedStore({ taxRateBps: 0 });
  const item = (await seedProduct(shop, { variants: [{ priceMinor: 1000, inventory: 100 }] })).variants[0]!;
  await seedShippingRates(shop, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  const profiles = await profileServer();
  const agentKey = profiles.agentKey as { kid: string; privateJwk: JWK };
  const profile = profiles.url("signed");
  const headers = () => ({
    "x-api-key": key,
    "ucp-agent": `profile="${profile}"`,
    "idempotency-key": randomUUID(),
  });
  const readyCheckout = async () => {
    const created = await rest<Checkout>("POST", `/s/${shop.slug}/checkout-sessions`, {
      headers: headers(),
      body: {
        line_items: [{ item: { id: item.id }, quantity: 1 }],
        buyer: BUYER,
        shipping_address: SEED_ADDRESS,
        shipping_method_id: "standard",
      },
    });
    assert.equal(created.body.status, "ready_for_complete", created.text);
    return created.body;
  };
  return { key, shop, agentKey, profile, headers, readyCheckout };
};

test("the completion prices on a fresh store: a tax rate changed elsewhere after a create priced from the cache fails the mandate signed over the old total", async () => {
  const { shop, agentKey, headers, readyCheckout } = await completableShop();
  const checkout = await readyCheckout();
  assert.equal(taxOf(checkout), 0);
  const body = await cardCompletionBody(checkout, shop.slug, agentKey, "pm_card_visa");
  // the store is in this instance's cache (the create took it from there); changed elsewhere, then completed at once
  await elsewhere(`UPDATE stores SET tax_rate_bps = 1000 WHERE id = '${shop.id}'`);
  const completed = await rest<Checkout>(
    "POST",
    `/s/${shop.slug}/checkout-sessions/${checkout.id}/complete`,
    {
      headers: headers(),
      body,
    },
  );
  assert.notEqual(completed.body.status, "completed", completed.text);
  const code = (completed.body as { messages?: { code?: string }[] }).messages?.[0]?.code;
  assert.equal(code, "mandate_invalid_signature", completed.text);
  assert.equal(
    await (await getDb()).order.count({ where: { checkoutId: checkout.id } }),
    0,
    "nothing charged",
  );
});

test("the completion pays in the store as it is now, on REST and MCP: a card rail turned off elsewhere refuses the card at once, with nothing stored; turned on again it pays", async () => {
  const { key, shop, agentKey, profile, headers, readyCheckout } = await completableShop();
  const surfaces = {
    rest: async (checkout: Checkout) => {
      const answer = await rest<Checkout>(
        "POST",
        `/s/${shop.slug}/checkout-sessions/${checkout.id}/complete`,
        {
          headers: headers(),
          body: await cardCompletionBody(checkout, shop.slug, agentKey, "pm_card_visa"),
        },
      );
      return answer.text;
    },
    mcp: async (checkout: Checkout) => {
      const answer = await mcpCall(
        `/s/${shop.slug}/mcp`,
        "complete_checkout",
        {
          id: checkout.id,
          checkout: await cardCompletionBody(checkout, shop.slug, agentKey, "pm_card_visa"),
        },
        {
          headers: { "x-api-key": key },
          meta: { "ucp-agent": { profile }, "idempotency-key": randomUUID() },
        },
      );
      return answer.text;
    },
  };
  const db = await getDb();
  const stored = async (id: string) => ({
    status: (await db.checkoutSession.findUniqueOrThrow({ where: { id } })).status,
    cardPayments: await db.cardPayment.count({ where: { checkoutId: id } }),
    orders: await db.order.count({ where: { checkoutId: id } }),
  });
  for (const [surface, complete] of Object.entries(surfaces)) {
    const checkout = await readyCheckout(); // the store is in this instance's cache, card rail on
    await elsewhere(`UPDATE stores SET card_enabled = false WHERE id = '${shop.id}'`);
    const refused = await complete(checkout);
    assert.match(refused, /unknown_payment_handler|rail_not_available/, `${surface}: ${refused}`);
    assert.deepEqual(
      await stored(checkout.id),
      { status: "ready_for_complete", cardPayments: 0, orders: 0 },
      `${surface}: nothing stored`,
    );
    await elsewhere(`UPDATE stores SET card_enabled = true WHERE id = '${shop.id}'`);
    const paid = await complete(checkout);
    assert.match(paid, /"completed"/, `${surface}: ${paid}`);
    assert.deepEqual(await stored(checkout.id), { status: "completed", cardPayments: 1, orders: 1 }, surface);
  }
});

// ── bearer tokens: a verified token is kept with the same bound (lib/oauth/verify-access-token.ts) ──────────────

/** A buyer's agent as a code exchange leaves it: a consent, a token family, and an access token of the family. */
const linkedAgent = async () => {
  const db = await getDb();
  const buyer = await seedBuyer();
  const clientId = `https://agent-${randomUUID()}.example/client.json`;
  // used a moment ago: the verification does not write the consent's last use (which would empty the cache)
  const consent = await db.buyerConsent.create({
    data: {
      id: `bc_${randomUUID()}`,
      buyerId: buyer.id,
      clientId,
      clientName: "Row cache agent",
      scopes: ["purchase:complete"],
      lastUsedAt: new Date(),
    },
  });
  const family = await db.oAuthTokenFamily.create({
    data: {
      id: `tf_${randomUUID()}`,
      consentId: consent.id,
      clientId,
      buyerId: buyer.id,
      scopes: ["purchase:complete"],
    },
  });
  const { accessToken } = await issueAccessToken({
    baseUrl: getBaseUrl(),
    subject: buyer.id,
    clientId,
    scopes: ["purchase:complete"],
    kind: "buyer",
    familyId: family.id,
    now: new Date(),
  });
  return { consent, family, accessToken };
};

const verifyBearer = (token: string, now?: Date) =>
  verifyAccessToken(token, { baseUrl: getBaseUrl(), ...(now ? { now } : {}) });

test("a buyer's token whose consent or family is revoked through this instance is refused on the next call", async () => {
  const db = await getDb();
  const byConsent = await linkedAgent();
  assert.equal((await verifyBearer(byConsent.accessToken))?.kind, "buyer"); // cached now
  await db.buyerConsent.update({ where: { id: byConsent.consent.id }, data: { revokedAt: new Date() } });
  assert.equal(await verifyBearer(byConsent.accessToken), null);

  const byFamily = await linkedAgent();
  assert.equal((await verifyBearer(byFamily.accessToken))?.kind, "buyer");
  await db.oAuthTokenFamily.update({ where: { id: byFamily.family.id }, data: { revokedAt: new Date() } });
  assert.equal(await verifyBearer(byFamily.accessToken), null);
});

test("a buyer's token revoked by another instance is refused within the bound, and a cached token never outlives its exp", async () => {
  const { consent, accessToken } = await linkedAgent();
  const verified = await verifyBearer(accessToken);
  assert.equal(verified?.kind, "buyer");
  assert.match(consent.id, /^[\w-]+$/);
  await elsewhere(`UPDATE buyer_consents SET revoked_at = now() WHERE id = '${consent.id}'`);
  const took = await seenWithin(
    () => verifyBearer(accessToken),
    (access) => access === null,
    TTL_MS + 500,
  );
  assert.ok(took <= TTL_MS + 500, `refused after ${Math.round(took)} ms`);

  const fresh = await linkedAgent();
  assert.equal((await verifyBearer(fresh.accessToken))?.kind, "buyer"); // cached now
  const claims = JSON.parse(Buffer.from(fresh.accessToken.split(".")[1]!, "base64url").toString()) as {
    exp: number;
  };
  assert.equal(await verifyBearer(fresh.accessToken, new Date(claims.exp * 1000)), null, "expired at exp");
  assert.equal((await verifyBearer(fresh.accessToken, new Date(claims.exp * 1000 - 1000)))?.kind, "buyer");
});

test("a platform client revoked through this instance: its client_credentials token is refused on the next call", async () => {
  const { clientId } = await createOAuthClient({ name: "Row cache platform", scopes: ["orders:read"] });
  const { accessToken } = await issueAccessToken({
    baseUrl: getBaseUrl(),
    subject: clientId,
    clientId,
    scopes: ["orders:read"],
    kind: "client",
    now: new Date(),
  });
  assert.equal((await verifyBearer(accessToken))?.kind, "client"); // cached now
  await revokeOAuthClient(clientId);
  assert.equal(await verifyBearer(accessToken), null);
});

test("a buyer's wallet is read once while kept; a write to buyers here empties the cache, and an account not found is not kept", async () => {
  const buyer = await seedBuyer();
  const first = await statementsOf(() => buyerWalletOf(buyer.id));
  assert.deepEqual(first.result, { suiAddress: buyer.suiAddress });
  assert.equal(first.sql.length, 1, first.sql.join("\n"));
  const kept = await statementsOf(() => buyerWalletOf(buyer.id));
  assert.deepEqual(kept.result, { suiAddress: buyer.suiAddress });
  assert.deepEqual(kept.sql, [], "the second read is the kept one");
  await (await getDb()).buyer.update({ where: { id: buyer.id }, data: { lastLoginAt: new Date() } });
  assert.equal(
    (await statementsOf(() => buyerWalletOf(buyer.id))).sql.length,
    1,
    "read afresh after a write",
  );

  const id = `buyer_${randomUUID()}`;
  assert.equal(await buyerWalletOf(id), null);
  await elsewhere(`INSERT INTO buyers (id, sui_address) VALUES ('${id}', '0x${"ab".repeat(32)}')`);
  assert.deepEqual(await buyerWalletOf(id), { suiAddress: `0x${"ab".repeat(32)}` }, "a miss is never kept");
});

test("a write in a statement's CTE through this instance empties the cache like any other", async () => {
  const { key } = await seedPlatformKey();
  const product = () =>
    rest<{ product?: { id: string; title: string } }>("POST", `/s/${store.slug}/catalog/product`, {
      headers: { "x-api-key": key },
      body: { id: sock.id },
    });
  assert.equal((await product()).status, 200); // the store is cached for reads now
  const db = await getDb();
  const slug = store.slug;
  await db.$executeRawUnsafe(
    "WITH moved AS (UPDATE stores SET slug = slug || '-cte' WHERE id = $1 RETURNING id) SELECT count(*) FROM moved",
    store.id,
  );
  try {
    assert.equal((await product()).status, 404, "the cached store is gone at once");
  } finally {
    await db.store.update({ where: { id: store.id }, data: { slug } });
  }
});
