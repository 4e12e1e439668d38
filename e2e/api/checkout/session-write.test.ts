import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { saveCheckout, VersionConflict } from "@/lib/checkout/checkout-record";
import { moveCheckout, moveCheckoutNow } from "@/lib/checkout/state";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { type Checkout } from "./helpers";

// The write of every update and every completion's hold (saveCheckout without line changes: moveCheckoutNow, one
// UPDATE without Prisma's client) stores what the same transition through Prisma's client stores, column for
// column, and its guards (version, the status machine, `from`) refuse exactly what Prisma's refuse.

let store: Store;
let key: string;
let variantId: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 1200, inventory: 50 }] })).variants[0]!.id;
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

const create = async () => {
  const res = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID() },
    body: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
};

const read = async (id: string) => (await getDb()).checkoutSession.findUniqueOrThrow({ where: { id } });

/** A session's columns but those that differ between two sessions by construction. */
const comparable = (row: Awaited<ReturnType<typeof read>>) => {
  const { id: _id, createdAt: _c, updatedAt: _u, continueToken: _t, expiresAt: _e, ...rest } = row;
  return rest;
};

const DATA = {
  buyer: { email: "zoë@example.com", first_name: "Zoë", last_name: "O'Brien", consent: { marketing: false } },
  fulfillment: {
    destination: { address_country: "US", street_address: "1 Ünïcode Way", postal_code: "94103" },
    selected_option_id: "standard",
    nested: [1, [2, { three: null }], 'quote " and backslash \\'],
  },
  discountCodes: ["ÉTÉ-10", "O'BRIEN", "a,b"],
  notes: "leave at the door ✓",
  totals: [
    { type: "subtotal", amount: 1200 },
    { type: "total", amount: 1200 },
  ],
  paymentInstruments: [{ id: "pi_1", handler_id: "svc.card", type: "card", selected: true }],
  context: { locale: "fr-FR", tags: [] },
  attribution: { source: "agent", campaign: { id: 7 } },
  mandateTermsHistory: [{ total: 1200, currency: "USD", at: "2026-01-01T00:00:00.000Z" }],
};

test("saveCheckout without line changes stores what the same transition through Prisma's client stores", async () => {
  const db = await getDb();
  const [mine, prismas] = [await create(), await create()];
  const before = await read(mine);
  assert.equal(before.status, "incomplete");
  await sleepPast(before.updatedAt);
  await saveCheckout(db, {
    id: mine,
    version: before.version,
    status: "complete_in_progress",
    data: { ...DATA, continueToken: `tok-${randomUUID()}` },
    lines: null,
  });
  const count = await moveCheckout(db, {
    id: prismas,
    version: (await read(prismas)).version,
    to: "complete_in_progress",
    data: { ...DATA, continueToken: `tok-${randomUUID()}` },
  });
  assert.equal(count, 1);
  const [written, expected] = [await read(mine), await read(prismas)];
  assert.deepEqual(comparable(written), comparable(expected));
  assert.equal(written.status, "complete_in_progress");
  assert.equal(written.version, before.version + 1);
  assert.deepEqual(written.discountCodes, DATA.discountCodes);
  assert.deepEqual(written.fulfillment, DATA.fulfillment);
  assert.match(written.continueToken ?? "", /^tok-/);
  assert.ok(written.updatedAt > before.updatedAt, "updated_at moves");
  assert.deepEqual(written.expiresAt, before.expiresAt, "columns not written stay");
  assert.deepEqual(written.createdAt, before.createdAt);
});

test("moveCheckoutNow: absent columns stay, an empty list and a JSON null are written, other columns untouched", async () => {
  const id = await create();
  const db = await getDb();
  await moveCheckout(db, { id, to: "ready_for_complete", data: { buyer: DATA.buyer, discountCodes: ["X"] } });
  const before = await read(id);
  assert.equal(
    await moveCheckoutNow({
      id,
      to: "incomplete",
      data: { discountCodes: [], context: null, buyer: undefined },
    }),
    1,
  );
  const after = await read(id);
  assert.deepEqual(after.discountCodes, []);
  assert.equal(after.context, null);
  assert.deepEqual(after.buyer, DATA.buyer, "undefined leaves the column as it was");
  assert.deepEqual(after.totals, before.totals);
  assert.equal(after.status, "incomplete");
  assert.equal(after.version, before.version + 1);
});

test("the guards refuse what Prisma's transition refuses: a stale version, a status the machine does not allow, a narrower `from`; nothing is written", async () => {
  const db = await getDb();
  const id = await create();
  const start = await read(id);
  // a stale version
  await assert.rejects(
    saveCheckout(db, {
      id,
      version: start.version - 1,
      status: "complete_in_progress",
      data: { notes: "stale" },
      lines: null,
    }),
    VersionConflict,
  );
  assert.deepEqual(await read(id), start);
  // `from` narrower than the machine: the session's status (incomplete) is not among them
  assert.equal(start.status, "incomplete");
  assert.equal(
    await moveCheckoutNow({ id, to: "canceled", from: ["requires_escalation"], data: { notes: "x" } }),
    0,
  );
  assert.deepEqual(await read(id), start);
  // a terminal session moves nowhere the machine forbids, whichever way it is written
  assert.equal(await moveCheckoutNow({ id, to: "canceled" }), 1);
  const canceled = await read(id);
  for (const to of ["complete_in_progress", "ready_for_complete", "completed", "incomplete"] as const) {
    assert.equal(await moveCheckoutNow({ id, to, data: { notes: "after cancel" } }), 0, to);
    assert.equal(await moveCheckout(db, { id, to, data: { notes: "after cancel" } }), 0, to);
    await assert.rejects(
      saveCheckout(db, { id, version: canceled.version, status: to, data: { notes: "x" }, lines: null }),
      VersionConflict,
    );
  }
  assert.deepEqual(await read(id), canceled);
  // an unknown id
  assert.equal(await moveCheckoutNow({ id: `chk_${randomUUID()}`, to: "canceled" }), 0);
});

/** Waits until the clock has moved past `instant` (updated_at must be seen to move). */
const sleepPast = async (instant: Date) => {
  while (Date.now() <= instant.getTime()) await new Promise((r) => setTimeout(r, 2));
};
