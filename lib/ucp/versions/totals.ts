// Totals at 2026-01-11 and 2026-01-23 (docs/ucp-versions.md §3.8; `types/total.json` at both tags): `type` is a
// closed enum of seven values and `amount` an integer ≥ 0; 2026-04-08 signs discounts (< 0) and opens the type.

export const OLDER_TOTAL_TYPES: ReadonlySet<string> = new Set([
  "items_discount",
  "subtotal",
  "discount",
  "fulfillment",
  "tax",
  "fee",
  "total",
]);

export type Total = { type: string; amount: number; display_text?: string; lines?: unknown };

/**
 * One total, unsigned: the magnitude (the type carries the sign: "total = subtotal − discount + fulfillment + tax
 * + fee", 01-11 `total.json`), `lines` dropped (not at the older tags). A type the older enum lacks is folded
 * into `fee` (≥ 0) or `discount` (< 0) with its display text kept, so the visible sum still adds up (product
 * call: we emit no such total today).
 */
export const totalDown = ({ type, amount, display_text }: Total): Total => {
  const known = OLDER_TOTAL_TYPES.has(type);
  const folded = known ? type : amount < 0 ? "discount" : "fee";
  const text = display_text ?? (known ? undefined : type);
  return { type: folded, amount: Math.abs(amount), ...(text !== undefined ? { display_text: text } : {}) };
};

/** A totals array at an older version (anything not an array passes untouched). */
export const totalsDown = (totals: unknown): unknown =>
  Array.isArray(totals) ? totals.map((t) => totalDown(t as Total)) : totals;
