import { percentOfHalfUp } from "./money";

// Checkout totals (UCP totals, CONTRACT §8): exactly one subtotal and one total, discounts negative, every
// amount an integer in minor units, and the non-total entries summing to the total.
// Store rule (issue #4, docs/decisions.md): tax = Store.taxRateBps of (goods − discounts + shipping), rounded
// half up to the minor unit once on the whole order. Shipping is taxed: most of our demo jurisdictions tax
// delivery charges on taxable goods, and one rule is easier to verify than a per-state table.

export type Total = { type: string; amount: number; display_text?: string };

const percentText = (bps: number): string => {
  const whole = Math.trunc(bps / 100);
  const frac = String(bps % 100)
    .padStart(2, "0")
    .replace(/0+$/, "");
  return frac ? `${whole}.${frac}%` : `${whole}%`;
};

export const checkoutTotals = ({
  goods,
  discount,
  fulfillment,
  taxRateBps,
}: {
  goods: number;
  /** Magnitude of all discounts (≥ 0, at most goods). */
  discount: number;
  /** Price of the selected shipping option, or null when none is selected yet. */
  fulfillment: number | null;
  taxRateBps: number;
}): Total[] => {
  const taxBase = goods - discount + (fulfillment ?? 0);
  const tax = taxRateBps > 0 ? percentOfHalfUp(taxBase, taxRateBps) : 0;
  return [
    { type: "subtotal", amount: goods, display_text: "Subtotal" },
    ...(discount > 0 ? [{ type: "discount", amount: -discount, display_text: "Discount" }] : []),
    ...(fulfillment !== null ? [{ type: "fulfillment", amount: fulfillment, display_text: "Shipping" }] : []),
    ...(taxRateBps > 0
      ? [{ type: "tax", amount: tax, display_text: `Tax (${percentText(taxRateBps)})` }]
      : []),
    { type: "total", amount: taxBase + tax, display_text: "Total" },
  ];
};
