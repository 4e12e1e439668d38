import { createHash } from "node:crypto";

import { mandatePayload, mandateTerms, type Checkout } from "@agent-commerce/agent-kit";

import type { BridgeContext } from "./context";
import { formatMoney } from "./money";
import type { CheckoutRef } from "./read-checkout";

// What the agent saw (docs/decisions.md, "The bridge confirms what the agent saw"). The bridge signs the AP2
// checkout mandate itself, so the service's binding of the charge to the signed terms (DECISIONS B5) binds it to
// whatever the bridge read at confirm time, not to what the agent showed the buyer. So every checkout answer of
// the bridge carries `terms_fingerprint`, a digest of the very terms the mandate signs (lines, quantities, prices,
// totals, buyer email, shipping method, destination and option), and confirm_purchase compares the live terms
// with the fingerprint the agent passes back (or, when it passes none, with the last one this bridge process
// showed that caller for that checkout) before it signs anything: a change refuses with the new terms, and
// nothing is charged.

/** The fingerprint of a checkout's mandate terms in store `storeSlug`. */
export const termsFingerprint = (checkout: Checkout, storeSlug: string): string =>
  `tf_${createHash("sha256")
    .update(mandatePayload(mandateTerms(checkout, storeSlug)))
    .digest("base64url")
    .slice(0, 32)}`;

/** Whether an answer is a checkout the terms can be read from (not an error envelope). */
export const isCheckout = (body: Record<string, unknown>): body is Checkout & Record<string, unknown> =>
  typeof body.id === "string" &&
  typeof body.currency === "string" &&
  Array.isArray(body.line_items) &&
  Array.isArray(body.totals);

// The last fingerprint shown per (caller, store, checkout): a bounded map in this process, the oldest dropped
// first. It is a convenience for agents that do not pass the fingerprint back; a restarted or another bridge
// process has none and then refuses with terms_confirmation_required rather than guess.
const MAX_REMEMBERED = 10_000;
const SHOWN_KEY = Symbol.for("agent-commerce-service.bridge-terms-shown");
type Holder = { [SHOWN_KEY]?: Map<string, string> };
const shown = ((globalThis as Holder)[SHOWN_KEY] ??= new Map<string, string>());

const callerOf = (ctx: BridgeContext): string =>
  createHash("sha256")
    .update(`${ctx.credentials.apiKey ?? ""}\n${ctx.credentials.authorization ?? ""}`)
    .digest("base64url");

const keyOf = (ctx: BridgeContext, ref: CheckoutRef) =>
  `${callerOf(ctx)}\n${ref.store_slug}\n${ref.checkout_id}`;

/** Records the terms this caller was shown for a checkout. */
export const rememberShownTerms = (ctx: BridgeContext, ref: CheckoutRef, fingerprint: string): void => {
  const key = keyOf(ctx, ref);
  shown.delete(key);
  shown.set(key, fingerprint);
  if (shown.size > MAX_REMEMBERED) {
    const oldest = shown.keys().next().value;
    if (oldest !== undefined) shown.delete(oldest);
  }
};

/** The fingerprint this caller was last shown for a checkout by this process, if any. */
export const shownTerms = (ctx: BridgeContext, ref: CheckoutRef): string | undefined =>
  shown.get(keyOf(ctx, ref));

/** A checkout answer with its terms fingerprint added (and remembered as shown to this caller). */
export const withTermsFingerprint = (
  ctx: BridgeContext,
  storeSlug: string,
  body: Record<string, unknown>,
): Record<string, unknown> => {
  if (!isCheckout(body)) return body;
  const fingerprint = termsFingerprint(body, storeSlug);
  rememberShownTerms(ctx, { store_slug: storeSlug, checkout_id: body.id }, fingerprint);
  return { ...body, terms_fingerprint: fingerprint };
};

const titleOf = (item: object) => {
  const title = (item as { title?: unknown }).title;
  return typeof title === "string" ? { title } : {};
};

/** The terms as a refusal shows them: what would be charged now, readable, with the fingerprint to confirm. */
export const presentTerms = (checkout: Checkout & Record<string, unknown>, storeSlug: string) => {
  const currency = checkout.currency;
  const money = (amount: number) => ({ amount, currency, formatted: formatMoney(amount, currency) });
  const total = checkout.totals.find((t) => t.type === "total")?.amount;
  return {
    terms_fingerprint: termsFingerprint(checkout, storeSlug),
    line_items: checkout.line_items.map((line) => ({
      id: line.item.id,
      ...titleOf(line.item),
      quantity: line.quantity,
      price: money(line.item.price),
    })),
    totals: checkout.totals.map((t) => ({ type: t.type, ...money(t.amount) })),
    ...(total !== undefined ? { total: money(total) } : {}),
  };
};
