import "server-only";

import { evaluateDiscounts, normalizeCode, type AppliedDiscount } from "@/lib/checkout/discounts";
import type { Db } from "@/lib/config/db";
import type { UcpMessage } from "@/lib/core/envelope";
import type { Store } from "@/lib/generated/prisma/client";

import { priceLines, type PricedLine } from "./price-lines";
import type { LineItemInput } from "./schemas";

// A cart priced live: lines and stock (price-lines.ts) and its discount codes (UCP discount extension on carts,
// the same rules as checkouts: lib/checkout/discounts.ts). Cart totals are estimates: no shipping, no tax.

export type PricedCart = {
  lines: PricedLine[];
  messages: UcpMessage[];
  discounts: { codes: string[]; applied: AppliedDiscount[] };
  discountTotal: number;
};

export const priceCart = async (
  db: Db,
  store: Store,
  lineInputs: readonly LineItemInput[],
  codes: readonly string[],
  now: Date,
): Promise<PricedCart> => {
  const normalized = codes.map(normalizeCode);
  const [{ lines, messages }, rows] = await Promise.all([
    priceLines(db, store, lineInputs),
    normalized.length > 0
      ? db.discountCode.findMany({ where: { storeId: store.id, code: { in: normalized } } })
      : Promise.resolve([]),
  ]);
  const discount = evaluateDiscounts({
    codes: normalized,
    rows,
    lineAmounts: lines.map((l) => l.variant.priceMinor * l.quantity),
    now,
  });
  return {
    lines,
    messages: [...messages, ...discount.messages],
    discounts: { codes: normalized, applied: discount.applied },
    discountTotal: discount.total,
  };
};
