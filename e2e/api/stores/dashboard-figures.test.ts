import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createAccount } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";
import { dashboardFigures } from "@/lib/orders/dashboard-figures";

import { seedPlatformKey, seedStore } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The dashboard's comparison and naming: every figure over the range beside the same figure over the days just
// before it, the average order value, and orders by agent named after the platform key or OAuth client that placed
// them (a signing agent without a credential by its profile's host), one row per agent profile.

before(prepareTestDatabase);
after(closeTestDatabase);

const placeOrder = async (
  store: Store,
  {
    day,
    totalMinor,
    principalId,
    profile,
  }: { day: string; totalMinor: number; principalId: string; profile: string | null },
) => {
  const db = await getDb();
  const at = new Date(`${day}T12:00:00.000Z`);
  const checkout = await db.checkoutSession.create({
    data: {
      id: newId("checkout"),
      storeId: store.id,
      principalId,
      status: "completed",
      currency: store.currency,
      agentProfile: profile,
      expiresAt: new Date(at.getTime() + 3_600_000),
      createdAt: at,
    },
  });
  await db.order.create({
    data: {
      id: newId("order"),
      storeId: store.id,
      checkoutId: checkout.id,
      principalId,
      currency: store.currency,
      handlerId: "svc.card",
      totals: [
        { type: "subtotal", amount: totalMinor },
        { type: "total", amount: totalMinor },
      ],
      createdAt: at,
    },
  });
};

test("figures against the previous period of the same length, the average order, agents by name", async () => {
  const store = await seedStore({ name: "Compared Shop" });
  const account = await createAccount({
    name: "Owner",
    email: `dash-${process.pid}-${Date.now()}@example.com`,
    password: "long enough passphrase",
  });
  await grantStoreRole(account.id, store.id, "owner");
  const key = await seedPlatformKey(["purchase:complete"]);
  const db = await getDb();
  const clientId = `ocl_${Date.now().toString(36)}`;
  await db.oAuthClient.create({
    data: { id: newId("oauthClient"), clientId, name: "Acme Shopping Agent", secretHash: "x", scopes: [] },
  });
  const shopper = "https://shopper.example/.well-known/ucp";
  const acme = "https://acme.example/profile";
  const signer = "https://signer.example/agent.json";
  // the range: 2020-06-11..2020-06-15; the previous period: 2020-06-06..2020-06-10
  await placeOrder(store, {
    day: "2020-06-15",
    totalMinor: 3000,
    principalId: `key:${key.id}`,
    profile: shopper,
  });
  await placeOrder(store, {
    day: "2020-06-11",
    totalMinor: 1001,
    principalId: `key:${key.id}`,
    profile: shopper,
  });
  await placeOrder(store, {
    day: "2020-06-12",
    totalMinor: 5000,
    principalId: `oauth-client:${clientId}`,
    profile: acme,
  });
  await placeOrder(store, {
    day: "2020-06-13",
    totalMinor: 700,
    principalId: `agent:${signer}`,
    profile: signer,
  });
  await placeOrder(store, {
    day: "2020-06-10",
    totalMinor: 2000,
    principalId: `key:${key.id}`,
    profile: shopper,
  });
  await placeOrder(store, {
    day: "2020-06-06",
    totalMinor: 4000,
    principalId: `key:${key.id}`,
    profile: shopper,
  });
  // outside both periods
  await placeOrder(store, {
    day: "2020-06-05",
    totalMinor: 9999,
    principalId: `key:${key.id}`,
    profile: shopper,
  });

  const figures = await dashboardFigures(account, store.slug, { from: "2020-06-11", to: "2020-06-15" });
  const sales = 3000 + 1001 + 5000 + 700;
  assert.deepEqual(figures.totals, {
    orders: 4,
    salesMinor: sales,
    refundedMinor: 0,
    averageOrderMinor: Math.round(sales / 4),
  });
  assert.equal(figures.totals.averageOrderMinor, 2425, "rounded to a whole minor unit");
  assert.deepEqual([figures.previous.from, figures.previous.to], ["2020-06-06", "2020-06-10"]);
  assert.deepEqual(figures.previous.totals, {
    orders: 2,
    salesMinor: 6000,
    refundedMinor: 0,
    averageOrderMinor: 3000,
  });
  assert.deepEqual(figures.previous.conversion, { checkouts: 2, converted: 2, rate: 1 });
  assert.deepEqual(
    figures.byAgent.map((a) => [a.name, a.agent, a.orders, a.salesMinor]),
    [
      ["Acme Shopping Agent", acme, 1, 5000],
      [key.name, shopper, 2, 4001],
      ["signer.example", signer, 1, 700],
    ],
  );

  const single = await dashboardFigures(account, store.slug, { from: "2020-06-10", to: "2020-06-10" });
  assert.deepEqual([single.previous.from, single.previous.to], ["2020-06-09", "2020-06-09"]);
  assert.equal(single.previous.totals.orders, 0);
  assert.equal(single.totals.averageOrderMinor, 2000);
});
