import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";

import { createAccount, makeOperator, type AccountSummary } from "@/lib/accounts/accounts";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import {
  operatorIssueCoupon,
  operatorListCoupons,
  operatorListPayables,
  operatorSettlePayables,
  storeCouponPayables,
} from "@/lib/coupons/operator";
import type { Store } from "@/lib/generated/prisma/client";

import { seedBuyer, seedStore } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Service coupons on the admin pages: the operator issues a coupon from major units (the same schema as the CLI;
// refused input stores nothing), lists coupons and payables and settles a store's open payables (open → settled
// once, with the time; void stays void); anyone else is told not_found; a store's team sees only its payables.

let operator: AccountSummary;
let merchant: AccountSummary;
let storeA: Store;
let storeB: Store;
let buyers: { suiAddress: string }[];

const account = (name: string) =>
  createAccount({
    name,
    email: `${name}-${process.pid}-${Date.now()}@example.com`,
    password: "long enough passphrase",
  });

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return { code: error.code, path: error.path, message: error.message };
  }
  assert.fail("expected a refusal");
};

const payable = async (store: Store, status: string, amountMinor = 500) =>
  (
    await (
      await getDb()
    ).couponPayable.create({
      data: {
        id: newId("couponPayable"),
        storeId: store.id,
        orderId: `ord_${randomBytes(8).toString("hex")}`,
        grantId: `cgr_${randomBytes(8).toString("hex")}`,
        amountMinor,
        currency: "USD",
        status,
      },
    })
  ).id;

before(async () => {
  await prepareTestDatabase();
  operator = await account("operator");
  operator = await makeOperator(operator.email);
  merchant = await account("merchant");
  storeA = await seedStore();
  storeB = await seedStore();
  await (
    await getDb()
  ).storeMembership.create({
    data: { id: newId("storeMembership"), accountId: merchant.id, storeId: storeA.id, role: "staff" },
  });
  buyers = [await seedBuyer(), await seedBuyer()];
});
after(closeTestDatabase);

test("the operator issues a coupon in major units; bad input is refused beside its field and stores nothing", async () => {
  const db = await getDb();
  const issued = await operatorIssueCoupon(operator, {
    amount: "12.50",
    currency: "usd",
    expires_on: day(7),
    buyer_addresses: `${buyers[0]!.suiAddress}\n\n  ${buyers[1]!.suiAddress.toUpperCase().replace("0X", "0x")}\n`,
  });
  assert.equal(issued.coupon.amountMinor, 1250);
  assert.equal(issued.coupon.currency, "USD");
  assert.equal(issued.coupon.description, "Service coupon");
  assert.equal(issued.coupon.expiresAt.toISOString(), `${day(7)}T23:59:59.999Z`);
  assert.equal(issued.grants.length, 2);
  const yen = await operatorIssueCoupon(operator, {
    description: "Welcome",
    amount: "1200",
    currency: "JPY",
    expires_on: day(1),
    buyer_addresses: buyers[0]!.suiAddress,
  });
  assert.equal(yen.coupon.amountMinor, 1200);
  const listed = await operatorListCoupons(operator);
  assert.deepEqual(
    listed.filter((c) => c.id === issued.coupon.id).map((c) => [c.amount_minor, c.granted, c.redeemed]),
    [[1250, 2, 0]],
  );

  const before = await db.serviceCoupon.count();
  const good = {
    amount: "5.00",
    currency: "USD",
    expires_on: day(3),
    buyer_addresses: buyers[0]!.suiAddress,
  };
  const cases: [Record<string, string>, string][] = [
    [{ amount: "5.005" }, "$.amount"],
    [{ amount: "12.5", currency: "JPY" }, "$.amount"],
    [{ amount: "-1" }, "$.amount"],
    [{ amount: "0" }, "$.amount"],
    [{ currency: "XYZ" }, "$.currency"],
    [{ currency: "US" }, "$.currency"],
    [{ buyer_addresses: "0xabc" }, "$.buyer_addresses"],
    [{ buyer_addresses: "" }, "$.buyer_addresses"],
    [{ buyer_addresses: `0x${"ab".repeat(32)}` }, "$.buyer_addresses"],
    [{ expires_on: day(-1) }, "$.expires_on"],
    [{ expires_on: "2026-02-30" }, "$.expires_on"],
    [{ expires_on: "soon" }, "$.expires_on"],
  ];
  for (const [change, path] of cases) {
    const refused = await refusal(operatorIssueCoupon(operator, { ...good, ...change }));
    assert.deepEqual(
      [refused.code, refused.path],
      ["invalid_request", path],
      JSON.stringify({ change, refused }),
    );
  }
  const second = await refusal(
    operatorIssueCoupon(operator, { ...good, buyer_addresses: `${buyers[0]!.suiAddress}\n0x12` }),
  );
  assert.match(second.message, /^Address 2: /);
  assert.equal(await db.serviceCoupon.count(), before);
});

test("anyone but the operator is told not_found for issuing, listing and settling, and nothing changes", async () => {
  const db = await getDb();
  const open = await payable(storeA, "open");
  const coupons = await db.serviceCoupon.count();
  for (const attempt of [
    operatorIssueCoupon(merchant, {
      amount: "5",
      currency: "USD",
      expires_on: day(3),
      buyer_addresses: buyers[0]!.suiAddress,
    }),
    operatorListCoupons(merchant),
    operatorListPayables(merchant),
    operatorSettlePayables(merchant, { store_slug: storeA.slug, payable_ids: [open] }),
  ]) {
    assert.equal((await refusal(attempt)).code, "not_found");
  }
  assert.equal(await db.serviceCoupon.count(), coupons);
  assert.equal((await db.couponPayable.findUniqueOrThrow({ where: { id: open } })).status, "open");
});

test("settling: open → settled with the time, twice changes nothing, void stays void, other stores untouched", async () => {
  const db = await getDb();
  const [a1, a2, aVoid, b1] = [
    await payable(storeA, "open", 700),
    await payable(storeA, "open", 300),
    await payable(storeA, "void"),
    await payable(storeB, "open"),
  ];
  const when = new Date("2026-11-20T10:00:00.000Z");
  assert.deepEqual(
    await operatorSettlePayables(
      operator,
      { store_slug: storeA.slug, payable_ids: [a1, a2, aVoid, b1] },
      when,
    ),
    { settled: 2 },
  );
  const rows = async () =>
    Object.fromEntries(
      (await db.couponPayable.findMany({ where: { id: { in: [a1, a2, aVoid, b1] } } })).map((p) => [
        p.id,
        [p.status, p.settledAt?.toISOString() ?? null],
      ]),
    );
  const expected = {
    [a1]: ["settled", when.toISOString()],
    [a2]: ["settled", when.toISOString()],
    [aVoid]: ["void", null],
    [b1]: ["open", null],
  };
  assert.deepEqual(await rows(), expected);
  assert.deepEqual(
    await operatorSettlePayables(
      operator,
      { store_slug: storeA.slug, payable_ids: [a1, a2, aVoid] },
      new Date(),
    ),
    { settled: 0 },
  );
  assert.deepEqual(await rows(), expected, "settling again keeps the first time");
  const listed = await operatorListPayables(operator);
  assert.deepEqual(
    listed.filter((p) => p.id === a1).map((p) => [p.store_slug, p.status, p.settled_at]),
    [[storeA.slug, "settled", when.toISOString()]],
  );
  assert.equal(
    (await refusal(operatorSettlePayables(operator, { store_slug: storeA.slug, payable_ids: [] }))).code,
    "invalid_request",
  );
  assert.equal(
    (await refusal(operatorSettlePayables(operator, { store_slug: "no-such-store", payable_ids: [b1] })))
      .code,
    "store_not_found",
  );
});

test("two settlements racing settle each open payable once", async () => {
  const ids = [await payable(storeB, "open"), await payable(storeB, "open"), await payable(storeB, "open")];
  const results = await Promise.all([
    operatorSettlePayables(operator, { store_slug: storeB.slug, payable_ids: ids }),
    operatorSettlePayables(operator, { store_slug: storeB.slug, payable_ids: ids }),
  ]);
  assert.equal(results[0]!.settled + results[1]!.settled, 3);
  const rows = await (await getDb()).couponPayable.findMany({ where: { id: { in: ids } } });
  assert.ok(rows.every((r) => r.status === "settled" && r.settledAt));
});

test("a store's team sees only its store's payables and the open total", async () => {
  const view = await storeCouponPayables(merchant, storeA.slug);
  const mine = await (await getDb()).couponPayable.findMany({ where: { storeId: storeA.id } });
  assert.ok(mine.length > 0);
  assert.deepEqual(view.payables.map((p) => p.id).sort(), mine.map((p) => p.id).sort());
  assert.ok(view.payables.every((p) => p.store_slug === storeA.slug));
  assert.deepEqual(view.open, [
    {
      currency: "USD",
      amount_minor: mine.filter((p) => p.status === "open").reduce((sum, p) => sum + p.amountMinor, 0),
    },
  ]);
  assert.equal((await refusal(storeCouponPayables(merchant, storeB.slug))).code, "store_not_found");
});
