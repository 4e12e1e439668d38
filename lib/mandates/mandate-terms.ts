import canonicalize from "canonicalize";

// The AP2 checkout mandate terms (DECISIONS.md B5): the part of a live, re-priced checkout an agent signs. Pure
// and dependency-light on purpose: it is part of the verification kit agents use to build the same bytes we
// verify (README "Checkout mandates").

export type MandateTerms = {
  checkout_id: string;
  merchant: string;
  currency: string;
  line_items: { item: { id: string; price: number }; quantity: number }[];
  totals: { type: string; amount: number }[];
};

/** The subset of a checkout response (UCP checkout.json) the terms are read from. */
export type MandateCheckout = {
  id: string;
  currency: string;
  line_items: readonly { item: { id: string; price: number }; quantity: number }[];
  totals: readonly { type: string; amount: number }[];
};

/** The mandate terms of a checkout (response shape) for a store slug: only the fields B5 names, in wire order. */
export const mandateTerms = (checkout: MandateCheckout, merchant: string): MandateTerms => ({
  checkout_id: checkout.id,
  merchant,
  currency: checkout.currency,
  line_items: checkout.line_items.map((l) => ({
    item: { id: l.item.id, price: l.item.price },
    quantity: l.quantity,
  })),
  totals: checkout.totals.map((t) => ({ type: t.type, amount: t.amount })),
});

/** The signed payload: the RFC 8785 (JCS) bytes of the terms. */
export const mandatePayload = (terms: MandateTerms): Uint8Array =>
  new TextEncoder().encode(canonicalize(terms) ?? "");
