// Demo checkout rules: shipping rates by destination, weight and price band with free-shipping
// thresholds, and discount codes, per demo store. Amounts are integer minor units of the store's currency.
import type { DemoStore } from "./demo-stores";
import { seedId } from "./seed-ids";

type RateSpec = {
  code: string;
  title: string;
  carrier?: string;
  country: string;
  region?: string;
  priceMinor: number;
  freeOverMinor?: number;
  minWeightGrams?: number;
  maxWeightGrams?: number;
  minDays: number;
  maxDays: number;
};

const US_RATES: readonly RateSpec[] = [
  {
    code: "standard",
    title: "Standard",
    carrier: "USPS",
    country: "US",
    priceMinor: 599,
    freeOverMinor: 7500,
    minDays: 3,
    maxDays: 5,
  },
  {
    code: "standard",
    title: "Standard (Alaska)",
    carrier: "USPS",
    country: "US",
    region: "AK",
    priceMinor: 1299,
    minDays: 5,
    maxDays: 9,
  },
  {
    code: "standard",
    title: "Standard (Hawaii)",
    carrier: "USPS",
    country: "US",
    region: "HI",
    priceMinor: 1299,
    minDays: 5,
    maxDays: 9,
  },
  {
    code: "express",
    title: "Express",
    carrier: "UPS",
    country: "US",
    priceMinor: 1499,
    maxWeightGrams: 5000,
    minDays: 1,
    maxDays: 2,
  },
  {
    code: "freight",
    title: "Freight",
    carrier: "UPS Freight",
    country: "US",
    priceMinor: 2999,
    minWeightGrams: 5000,
    minDays: 4,
    maxDays: 7,
  },
  {
    code: "international",
    title: "International",
    carrier: "DHL",
    country: "*",
    priceMinor: 2999,
    minDays: 7,
    maxDays: 14,
  },
];

const EU_NEIGHBOURS = ["AT", "BE", "CH", "DK", "FR", "IT", "LU", "NL", "PL", "CZ"];
const DE_RATES: readonly RateSpec[] = [
  {
    code: "standard",
    title: "Standardversand",
    carrier: "DHL",
    country: "DE",
    priceMinor: 490,
    freeOverMinor: 5000,
    minDays: 1,
    maxDays: 3,
  },
  {
    code: "express",
    title: "Expressversand",
    carrier: "DHL Express",
    country: "DE",
    priceMinor: 990,
    maxWeightGrams: 10000,
    minDays: 1,
    maxDays: 1,
  },
  ...EU_NEIGHBOURS.map((country) => ({
    code: "standard",
    title: "Standard (EU)",
    carrier: "DHL",
    country,
    priceMinor: 1290,
    freeOverMinor: 15000,
    minDays: 3,
    maxDays: 6,
  })),
];

type CodeSpec = {
  code: string;
  title: string;
  kind: "percentage" | "fixed_amount";
  value: number;
  minSubtotalMinor?: number;
  expiresAt?: Date;
};

const CODES: readonly CodeSpec[] = [
  { code: "WELCOME10", title: "10% off your first order", kind: "percentage", value: 1000 },
  { code: "SAVE5", title: "5 off orders over 50", kind: "fixed_amount", value: 500, minSubtotalMinor: 5000 },
  {
    code: "SPRING25",
    title: "Spring sale (ended)",
    kind: "percentage",
    value: 2500,
    expiresAt: new Date("2026-06-01T00:00:00Z"),
  },
];

export const checkoutRuleRows = (store: DemoStore, storeId: string) => {
  const rates = store.country === "DE" ? DE_RATES : US_RATES;
  return {
    shippingRates: rates.map((r, position) => ({
      id: seedId("shippingRate", store.slug, position),
      storeId,
      code: r.code,
      title: r.title,
      carrier: r.carrier ?? null,
      country: r.country,
      region: r.region ?? null,
      priceMinor: r.priceMinor,
      freeOverMinor: r.freeOverMinor ?? null,
      minWeightGrams: r.minWeightGrams ?? 0,
      maxWeightGrams: r.maxWeightGrams ?? null,
      minDays: r.minDays,
      maxDays: r.maxDays,
      position,
    })),
    discountCodes: CODES.map((c) => ({
      id: seedId("discountCode", store.slug, c.code),
      storeId,
      code: c.code,
      title: c.title,
      kind: c.kind,
      value: c.value,
      minSubtotalMinor: c.minSubtotalMinor ?? 0,
      expiresAt: c.expiresAt ?? null,
    })),
  };
};
