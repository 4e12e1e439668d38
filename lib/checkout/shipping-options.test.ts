import assert from "node:assert/strict";
import { test } from "node:test";

import type { ShippingRate } from "@/lib/generated/prisma/client";

import { shippingOptions } from "./shipping-options";

let n = 0;
const rate = (over: Partial<ShippingRate> & Pick<ShippingRate, "code" | "priceMinor">): ShippingRate => ({
  id: `shr_${n++}`,
  storeId: "store_1",
  title: over.code,
  description: null,
  carrier: null,
  country: "US",
  region: null,
  minWeightGrams: 0,
  maxWeightGrams: null,
  minSubtotalMinor: 0,
  maxSubtotalMinor: null,
  freeOverMinor: null,
  freeForTag: null,
  minDays: null,
  maxDays: null,
  position: n,
  ...over,
});

const RATES = [
  rate({ code: "standard", priceMinor: 500, freeOverMinor: 5000, minDays: 3, maxDays: 5 }),
  rate({ code: "standard", priceMinor: 700, region: "AK" }),
  rate({ code: "express", priceMinor: 1500, maxWeightGrams: 1000 }),
  rate({ code: "bulk", priceMinor: 3000, minWeightGrams: 1000 }),
  rate({ code: "small", priceMinor: 200, maxSubtotalMinor: 1000 }),
  rate({ code: "world", priceMinor: 2500, country: "*" }),
];

const ids = (opts: Omit<Parameters<typeof shippingOptions>[0], "itemTags">) =>
  shippingOptions({ itemTags: [["test"]], ...opts }).map((o) => [o.id, o.amount]);

test("country, region specificity, weight and price bands (min inclusive, max exclusive)", () => {
  assert.deepEqual(
    ids({ rates: RATES, country: "US", region: "CA", weightGrams: 999, goodsAfterDiscount: 999 }),
    [
      ["standard", 500],
      ["express", 1500],
      ["small", 200],
      ["world", 2500],
    ],
  );
  assert.deepEqual(
    ids({ rates: RATES, country: "US", region: "ak", weightGrams: 1000, goodsAfterDiscount: 1000 }),
    [
      ["standard", 700],
      ["bulk", 3000],
      ["world", 2500],
    ],
  );
  assert.deepEqual(
    ids({ rates: RATES, country: "FR", region: undefined, weightGrams: 0, goodsAfterDiscount: 0 }),
    [["world", 2500]],
  );
});

test("free-shipping threshold on the discounted goods subtotal, and a days description", () => {
  const at = shippingOptions({
    rates: RATES,
    country: "US",
    region: "NY",
    weightGrams: 10,
    goodsAfterDiscount: 5000,
    itemTags: [[]],
  });
  const standard = at.find((o) => o.id === "standard")!;
  assert.equal(standard.amount, 0);
  assert.equal(standard.title, "Free standard");
  assert.equal(standard.description, "Arrives in 3–5 business days");
  const below = shippingOptions({
    rates: RATES,
    country: "US",
    region: "NY",
    weightGrams: 10,
    goodsAfterDiscount: 4999,
    itemTags: [[]],
  });
  assert.equal(below.find((o) => o.id === "standard")?.amount, 500);
});

test("free-shipping tag: free only when every item shipped carries it, below any threshold; other rates still priced", () => {
  const rates = [
    rate({
      code: "standard",
      title: "Standard Shipping",
      priceMinor: 500,
      freeOverMinor: 10_000,
      freeForTag: "roses",
    }),
    rate({ code: "express", priceMinor: 1500 }),
  ];
  const priced = (itemTags: string[][], goodsAfterDiscount = 3500) =>
    shippingOptions({
      rates,
      country: "US",
      region: undefined,
      weightGrams: 0,
      goodsAfterDiscount,
      itemTags,
    }).map((o) => [o.id, o.amount, o.title]);
  assert.deepEqual(priced([["roses", "red"]]), [
    ["standard", 0, "Free Standard Shipping"],
    ["express", 1500, "express"],
  ]);
  assert.deepEqual(priced([["roses"], ["roses", "gift"]])[0], ["standard", 0, "Free Standard Shipping"]);
  // one item without the tag, the tag's neighbour, a tag containing it or no items at all: the shipment pays
  assert.deepEqual(priced([["roses"], ["tulips"]])[0], ["standard", 500, "Standard Shipping"]);
  assert.deepEqual(priced([["rose"]])[0], ["standard", 500, "Standard Shipping"]);
  assert.deepEqual(priced([["roses-red"]])[0], ["standard", 500, "Standard Shipping"]);
  assert.deepEqual(priced([])[0], ["standard", 500, "Standard Shipping"]);
  // the threshold still frees the mixed shipment
  assert.deepEqual(priced([["roses"], ["tulips"]], 10_000)[0], ["standard", 0, "Free Standard Shipping"]);
});
