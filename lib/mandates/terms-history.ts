import { isDeepStrictEqual } from "node:util";

import type { MandateTerms } from "./mandate-terms";

// The mandate terms a checkout had after each create and update, newest last. A detached signature cannot say
// what it was made over, so when a mandate fails over the current terms the verifier tries these: the commonest
// mistake is signing a response and then changing the checkout (or the price changing), and naming exactly what
// changed since then tells the agent what to do. Bounded, so a long-lived checkout's row stays small. Pure.

export const TERMS_HISTORY_LIMIT = 5;

const isTerms = (value: unknown): value is MandateTerms =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as MandateTerms).checkout_id === "string" &&
  Array.isArray((value as MandateTerms).line_items) &&
  Array.isArray((value as MandateTerms).totals);

/** The stored history (a JSON column), keeping only well-formed entries. */
export const readTermsHistory = (stored: unknown): MandateTerms[] =>
  Array.isArray(stored) ? stored.filter(isTerms) : [];

/** The history with `terms` appended, unless they equal the newest entry; at most TERMS_HISTORY_LIMIT kept. */
export const recordTerms = (stored: unknown, terms: MandateTerms): MandateTerms[] => {
  const history = readTermsHistory(stored);
  if (history.length > 0 && isDeepStrictEqual(history.at(-1), terms)) return history;
  return [...history, terms].slice(-TERMS_HISTORY_LIMIT);
};

const show = (value: unknown): string => (value === undefined ? "(none)" : JSON.stringify(value));

const diffValues = (path: string, before: unknown, after: unknown, out: string[]): void => {
  if (isDeepStrictEqual(before, after)) return;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      diffValues(`${path}.${key}`, before[key], after[key], out);
    }
    return;
  }
  out.push(`${path} ${show(before)} → ${show(after)}`);
};

/**
 * What differs between the terms a mandate was signed over and the current ones, as readable JSONPath-like
 * lines (`totals[total] 1200 → 1500`). Totals are matched by type and line items by item id, so one added line
 * does not report every line after it.
 */
export const describeTermsChange = (signed: MandateTerms, current: MandateTerms): string[] => {
  const out: string[] = [];
  for (const key of ["checkout_id", "merchant", "currency"] as const) {
    diffValues(key, signed[key], current[key], out);
  }
  const lines = (terms: MandateTerms) =>
    new Map(terms.line_items.map((l) => [l.item.id, { price: l.item.price, quantity: l.quantity }]));
  const [signedLines, currentLines] = [lines(signed), lines(current)];
  for (const id of new Set([...signedLines.keys(), ...currentLines.keys()])) {
    const [a, b] = [signedLines.get(id), currentLines.get(id)];
    if (!a) out.push(`line_items[${id}] added`);
    else if (!b) out.push(`line_items[${id}] removed`);
    else diffValues(`line_items[${id}]`, a, b, out);
  }
  const totals = (terms: MandateTerms) => new Map(terms.totals.map((t) => [t.type, t.amount]));
  const [signedTotals, currentTotals] = [totals(signed), totals(current)];
  for (const type of new Set([...signedTotals.keys(), ...currentTotals.keys()])) {
    diffValues(`totals[${type}]`, signedTotals.get(type), currentTotals.get(type), out);
  }
  diffValues("buyer", signed.buyer, current.buyer, out);
  diffValues("fulfillment", signed.fulfillment, current.fulfillment, out);
  return out;
};
