import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { railForStore } from "@/lib/payments/rails";

import { mergeFulfillment } from "./fulfillment";
import { offeredHandlers, type CheckoutDraft, type DraftLine, type StoredInstrument } from "./price-checkout";
import type { CheckoutLineItemInput, CommonCheckoutFields, PaymentInput } from "./schemas";

// How a create or update request changes a draft (CONTRACT §7.3, lenient server: an omitted field is unchanged,
// a sent field replaces the stored value — except buyer, merged field by field; `discounts.codes` replaces the whole set and [] clears it).

const RAIL_TYPES: Record<string, string> = { "svc.card": "card", "svc.crypto": "crypto" };

/**
 * Instruments as stored and echoed: credentials never kept (UCP §7.1), a missing id generated and a missing type
 * inferred from the rail (CONTRACT §18.1 #11).
 * @throws AppError invalid_request for a handler this store does not offer; rail_not_available for one it offers
 *   but that cannot complete a checkout yet (selecting it would only fail later, at completion)
 */
export const toStoredInstruments = (store: Store, payment: PaymentInput): StoredInstrument[] => {
  const offered = offeredHandlers(store);
  return payment.instruments.map((inst, i) => {
    if (!offered.includes(inst.handler_id)) {
      throw new AppError(
        "invalid_request",
        `$.payment.instruments[${i}].handler_id: ${inst.handler_id} is not offered by this store (offered: ${offered.join(", ") || "none"})`,
        { path: `$.payment.instruments[${i}].handler_id` },
      );
    }
    if (!railForStore(store, inst.handler_id)) {
      const completing = offered.filter((id) => railForStore(store, id));
      throw new AppError(
        "rail_not_available",
        `${inst.handler_id} cannot complete checkouts in this store yet (not fully set up): select ${completing.join(" or ") || "another rail"}`,
        { path: `$.payment.instruments[${i}].handler_id` },
      );
    }
    return {
      id: inst.id ?? `pi_${i + 1}`,
      handler_id: inst.handler_id,
      type: inst.type ?? RAIL_TYPES[inst.handler_id] ?? "card",
      selected: inst.selected ?? payment.instruments.length === 1,
    };
  });
};

/** New line rows for requested lines, keeping the id of a line whose variant (or sent id) is already there. */
export const toDraftLines = (
  requested: readonly CheckoutLineItemInput[],
  previous: readonly DraftLine[],
): DraftLine[] =>
  requested.map((line) => {
    const kept =
      previous.find((p) => line.id !== undefined && p.id === line.id && p.variantId === line.item.id) ??
      previous.find((p) => p.variantId === line.item.id);
    return { id: kept?.id ?? newId("checkoutLine"), variantId: line.item.id, quantity: line.quantity };
  });

export const applyRequest = (
  store: Store,
  draft: CheckoutDraft,
  input: CommonCheckoutFields & { line_items?: readonly CheckoutLineItemInput[] },
): CheckoutDraft => ({
  lines: input.line_items ? toDraftLines(input.line_items, draft.lines) : draft.lines,
  // buyer fields merge one by one, so an agent can send just the fields a blocker named
  buyer: input.buyer ? { ...draft.buyer, ...input.buyer } : draft.buyer,
  fulfillment: mergeFulfillment(draft.fulfillment, input),
  discountCodes: input.discounts?.codes ?? draft.discountCodes,
  instruments: input.payment ? toStoredInstruments(store, input.payment) : draft.instruments,
  ...(draft.variants ? { variants: draft.variants } : {}),
  ...(draft.rates ? { rates: draft.rates } : {}),
});
