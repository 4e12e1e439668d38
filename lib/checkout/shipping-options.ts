import type { ShippingRate } from "@/lib/generated/prisma/client";

// Shipping options for a destination (store rules, issue #4): a rate matches when its country is the
// destination's (or "*"), its region is unset or equal, and the shipment's weight and discounted goods subtotal
// fall in its bands (min inclusive, max exclusive). Rates sharing a `code` form one option, and the most
// specific matching rate wins (region > country > "*", then position). A rate is free from its threshold on the
// discounted goods subtotal, or when every item shipped carries its free-shipping tag (one untagged item in the
// cart and the whole shipment pays: a rate is one price for the shipment, not a price per item).

export type ShippingOption = {
  id: string;
  title: string;
  description?: string;
  carrier?: string;
  amount: number;
};

const specificity = (rate: ShippingRate): number => (rate.region ? 2 : rate.country === "*" ? 0 : 1);

const inBand = (value: number, min: number, max: number | null): boolean =>
  value >= min && (max === null || value < max);

const daysText = (rate: ShippingRate): string | undefined => {
  if (rate.minDays === null && rate.maxDays === null) return rate.description ?? undefined;
  const days =
    rate.minDays !== null && rate.maxDays !== null && rate.minDays !== rate.maxDays
      ? `${rate.minDays}–${rate.maxDays}`
      : String(rate.maxDays ?? rate.minDays);
  const text = `Arrives in ${days} business day${days === "1" ? "" : "s"}`;
  return rate.description ? `${rate.description}. ${text}` : text;
};

/** Pure: the options offered for one shipment, cheapest rule first within the rates' order. */
export const shippingOptions = ({
  rates,
  country,
  region,
  weightGrams,
  goodsAfterDiscount,
  itemTags,
}: {
  rates: readonly ShippingRate[];
  country: string;
  region: string | undefined;
  weightGrams: number;
  goodsAfterDiscount: number;
  /** Each shipped item's product tags (lower-cased, as stored). */
  itemTags: readonly (readonly string[])[];
}): ShippingOption[] => {
  const upperRegion = region?.trim().toUpperCase();
  const best = new Map<string, ShippingRate>();
  for (const rate of rates) {
    if (rate.country !== "*" && rate.country !== country) continue;
    if (rate.region && rate.region.toUpperCase() !== upperRegion) continue;
    if (!inBand(weightGrams, rate.minWeightGrams, rate.maxWeightGrams)) continue;
    if (!inBand(goodsAfterDiscount, rate.minSubtotalMinor, rate.maxSubtotalMinor)) continue;
    const current = best.get(rate.code);
    if (
      !current ||
      specificity(rate) > specificity(current) ||
      (specificity(rate) === specificity(current) && rate.position < current.position)
    ) {
      best.set(rate.code, rate);
    }
  }
  return [...best.values()]
    .sort((a, b) => a.position - b.position || a.priceMinor - b.priceMinor)
    .map((rate) => {
      const free =
        (rate.freeOverMinor !== null && goodsAfterDiscount >= rate.freeOverMinor) ||
        (rate.freeForTag !== null &&
          itemTags.length > 0 &&
          itemTags.every((tags) => tags.includes(rate.freeForTag!)));
      const description = daysText(rate);
      return {
        id: rate.code,
        // a free option says so first, in the words a shop window uses ("Free Standard Shipping")
        title: free ? `Free ${rate.title}` : rate.title,
        ...(description ? { description } : {}),
        ...(rate.carrier ? { carrier: rate.carrier } : {}),
        amount: free ? 0 : rate.priceMinor,
      };
    });
};
