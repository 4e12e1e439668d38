import type { UcpMessage } from "@/lib/core/envelope";
import type { DiscountCode } from "@/lib/generated/prisma/client";

import { allocateProportionally, percentOfFloor } from "./money";

// Merchant promo codes (UCP discount extension, CONTRACT §11.2). The submitted list is the whole code set; each
// code is applied in the order sent, on what is left of the goods subtotal after the codes before it, and never
// below zero. Rejected codes are reported as warnings with the code's JSONPath, never silently dropped.

export type AppliedDiscount = {
  code: string;
  title: string;
  amount: number;
  automatic: false;
  method: "across";
  priority: number;
  allocations: { path: string; amount: number }[];
};

export type DiscountOutcome = { applied: AppliedDiscount[]; messages: UcpMessage[]; total: number };

export const normalizeCode = (code: string): string => code.trim().toUpperCase();

const warning = (code: string, index: number, content: string): UcpMessage => ({
  type: "warning",
  code,
  content,
  path: `$.discounts.codes[${index}]`,
});

/** Pure: evaluates `codes` against the store's matching rows for a goods subtotal split over line amounts. */
export const evaluateDiscounts = ({
  codes,
  rows,
  lineAmounts,
  now,
}: {
  codes: readonly string[];
  rows: readonly DiscountCode[];
  lineAmounts: readonly number[];
  now: Date;
}): DiscountOutcome => {
  const byCode = new Map(rows.map((r) => [normalizeCode(r.code), r]));
  const goods = lineAmounts.reduce((a, b) => a + b, 0);
  const applied: AppliedDiscount[] = [];
  const messages: UcpMessage[] = [];
  const seen = new Set<string>();
  let remaining = goods;
  codes.forEach((raw, index) => {
    const code = normalizeCode(raw);
    if (seen.has(code)) {
      messages.push(warning("discount_code_already_applied", index, `Code ${code} is already applied`));
      return;
    }
    seen.add(code);
    const row = byCode.get(code);
    if (!row || (row.startsAt && row.startsAt > now)) {
      messages.push(
        warning("discount_code_invalid", index, `Code ${code} is not a valid code for this store`),
      );
      return;
    }
    if (row.expiresAt && row.expiresAt <= now) {
      messages.push(warning("discount_code_expired", index, `Code ${code} expired`));
      return;
    }
    if (goods < row.minSubtotalMinor) {
      messages.push(
        warning(
          "discount_code_minimum_not_met",
          index,
          `Code ${code} needs a subtotal of at least ${row.minSubtotalMinor} (minor units)`,
        ),
      );
      return;
    }
    const wanted = row.kind === "percentage" ? percentOfFloor(remaining, row.value) : row.value;
    const amount = Math.max(0, Math.min(wanted, remaining));
    remaining -= amount;
    const parts = allocateProportionally(amount, lineAmounts);
    applied.push({
      code,
      title: row.title,
      amount,
      automatic: false,
      method: "across",
      priority: applied.length + 1,
      allocations: parts.flatMap((part, i) =>
        part > 0 ? [{ path: `$.line_items[${i}]`, amount: part }] : [],
      ),
    });
  });
  return { applied, messages, total: goods - remaining };
};
