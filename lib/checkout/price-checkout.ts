import "server-only";

import { priceLines, type PricedLine, type PricedVariant } from "@/lib/carts/price-lines";
import type { Db } from "@/lib/config/db";
import type { UcpMessage } from "@/lib/core/envelope";
import type { CheckoutStatus, ShippingRate, Store } from "@/lib/generated/prisma/client";
import { ratesForCountry } from "@/lib/stores/shipping-rates";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { evaluateDiscounts, normalizeCode, type AppliedDiscount } from "./discounts";
import type { FulfillmentState } from "./fulfillment";
import { preflightMessages } from "./preflight";
import type { BuyerInput } from "./schemas";
import { shippingOptions, type ShippingOption } from "./shipping-options";
import { openStatusFor } from "./state";
import { checkoutTotals, type Total } from "./totals";

// Prices a checkout draft: live prices and stock (shared with carts), discounts, shipping options for the
// destination, tax, totals, every blocker (the preflight) and the resulting open status. A terminal session is
// priced "frozen": from the unit prices stored when it was last open, without live stock or preflight.

export type DraftLine = { id: string; variantId: string; quantity: number; frozenPriceMinor?: number };
export type StoredInstrument = { id: string; handler_id: string; type: string; selected: boolean };

export type CheckoutDraft = {
  lines: readonly DraftLine[];
  buyer: BuyerInput | null;
  fulfillment: FulfillmentState;
  discountCodes: readonly string[];
  instruments: readonly StoredInstrument[];
  /**
   * Variants read with the stored session, in the same statement (lib/checkout/checkout-record.ts): pricing
   * reads only the lines' other variants.
   */
  variants?: readonly PricedVariant[];
  /** The rates of the stored destination's country, read with the session (a completion's fresh rates). */
  rates?: StoredRates;
};

/** A store's shipping rates for one destination country (and anywhere, "*"), ordered by position then id. */
export type StoredRates = { country: string; rows: readonly ShippingRate[] };

export type PricedCheckoutLine = PricedLine & { id: string; unitPrice: number; amount: number };

export type PricedCheckout = {
  lines: PricedCheckoutLine[];
  discounts: { codes: string[]; applied: AppliedDiscount[] };
  options: ShippingOption[] | null;
  selectedOption: ShippingOption | null;
  totals: Total[];
  messages: UcpMessage[];
  status: CheckoutStatus;
};

/** The rails this store offers, by inner handler id (seed §1). */
export const offeredHandlers = (store: Store): string[] => [
  ...(store.cardEnabled ? [RAIL_HANDLER_IDS.card] : []),
  ...(store.cryptoEnabled ? [RAIL_HANDLER_IDS.crypto] : []),
];

/** The instrument the agent selected: the one marked `selected`, or the only one sent. */
export const selectedHandler = (instruments: readonly StoredInstrument[]): string | null =>
  (instruments.find((i) => i.selected) ?? (instruments.length === 1 ? instruments[0] : undefined))
    ?.handler_id ?? null;

/** A stored totals list (the session's `totals` column): entries of a type and an integer amount. */
const isTotals = (value: unknown): value is Total[] =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every(
    (t) =>
      typeof t === "object" &&
      t !== null &&
      typeof (t as Total).type === "string" &&
      Number.isInteger((t as Total).amount),
  );

export const priceCheckout = async (
  db: Db,
  store: Store,
  draft: CheckoutDraft,
  {
    now,
    frozen = false,
    storedTotals,
    ratesForRead = false,
    status,
  }: {
    now: Date;
    /** Terminal sessions: stored unit prices, no live stock messages and no preflight. */
    frozen?: boolean;
    /**
     * Frozen only: the totals stored with the session (what was charged or held). They are the totals shown, and
     * the selected shipping option shows the stored shipping amount, whatever the store's rates are now.
     */
    storedTotals?: unknown;
    /**
     * The price is not what is charged (a read, a frozen session's answer, or a create or update whose totals the
     * completion prices again): the shipping rates may come from the row cache (lib/stores/shipping-rates.ts).
     */
    ratesForRead?: boolean;
    /** Keep this status instead of deriving the open status from the blockers (states issue #5 enters). */
    status?: CheckoutStatus;
  },
): Promise<PricedCheckout> => {
  const codes = draft.discountCodes.map(normalizeCode);
  const [pricing, codeRows, rates] = await Promise.all([
    priceLines(
      db,
      store,
      draft.lines.map((l) => ({ item: { id: l.variantId }, quantity: l.quantity })),
      draft.variants,
    ),
    codes.length > 0
      ? db.discountCode.findMany({ where: { storeId: store.id, code: { in: codes } } })
      : Promise.resolve([]),
    draft.fulfillment.destination?.address_country
      ? draft.rates?.country === draft.fulfillment.destination.address_country
        ? Promise.resolve(draft.rates.rows)
        : ratesForCountry(db, store.id, draft.fulfillment.destination.address_country, {
            forRead: ratesForRead,
          })
      : Promise.resolve(null),
  ]);
  const byVariant = new Map(draft.lines.map((l) => [l.variantId, l]));
  const lines = pricing.lines.map((p): PricedCheckoutLine => {
    const draftLine = byVariant.get(p.variant.id)!;
    const unitPrice = frozen ? (draftLine.frozenPriceMinor ?? p.variant.priceMinor) : p.variant.priceMinor;
    return { ...p, id: draftLine.id, unitPrice, amount: unitPrice * p.quantity };
  });
  const discount = evaluateDiscounts({
    codes,
    rows: codeRows,
    lineAmounts: lines.map((l) => l.amount),
    now,
  });
  const goods = lines.reduce((a, l) => a + l.amount, 0);
  const destination = draft.fulfillment.destination;
  const options =
    rates && destination?.address_country
      ? shippingOptions({
          rates,
          country: destination.address_country,
          region: destination.address_region,
          weightGrams: lines.reduce((a, l) => a + l.variant.weightGrams * l.quantity, 0),
          goodsAfterDiscount: goods - discount.total,
          itemTags: lines.map((l) => l.variant.product.tags),
        })
      : null;
  const kept = frozen && isTotals(storedTotals) ? storedTotals : null;
  const keptShipping = kept?.find((t) => t.type === "fulfillment")?.amount;
  const shown =
    options && keptShipping !== undefined
      ? options.map((o) => (o.id === draft.fulfillment.selectedOptionId ? { ...o, amount: keptShipping } : o))
      : options;
  const selectedOption = shown?.find((o) => o.id === draft.fulfillment.selectedOptionId) ?? null;
  const totals =
    kept ??
    checkoutTotals({
      goods,
      discount: discount.total,
      fulfillment: selectedOption?.amount ?? null,
      taxRateBps: store.taxRateBps,
    });
  const messages = frozen
    ? []
    : [
        ...pricing.messages,
        ...preflightMessages({
          lineCount: lines.length,
          buyer: draft.buyer,
          fulfillment: draft.fulfillment,
          options,
          hasRatesForCountry: (rates?.length ?? 0) > 0,
          offeredHandlers: offeredHandlers(store),
          selectedHandler: selectedHandler(draft.instruments),
        }),
        ...discount.messages,
      ];
  return {
    lines,
    discounts: { codes, applied: discount.applied },
    options: shown,
    selectedOption,
    totals,
    messages,
    status: status ?? openStatusFor(messages),
  };
};
