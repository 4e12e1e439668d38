import type { UcpMessage } from "@/lib/core/envelope";

import { missingAddressFields, type FulfillmentState } from "./fulfillment";
import type { BuyerInput } from "./schemas";
import type { ShippingOption } from "./shipping-options";

// The preflight: every blocker of completion at once, each as a recoverable error with the
// JSONPath (into the response) of what to fix, so an agent can repair everything in one update.

export const REQUIRED_BUYER_FIELDS = ["email", "first_name", "last_name"] as const;

const missing = (path: string, content: string): UcpMessage => ({
  type: "error",
  code: "missing",
  content,
  severity: "recoverable",
  path,
});

const REGION_NAMES = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/**
 * Why no option serves the destination, for the agent to relay: the store has no rate for the country at all (the
 * merchant has not set shipping up there), or its rates there exclude this order (region, weight or subtotal band).
 */
const undeliverableContent = (country: string, region: string | undefined, hasRatesForCountry: boolean) => {
  const name = REGION_NAMES.of(country);
  const place = `${name ? `${name} (${country})` : country}${region ? `, region ${region}` : ""}`;
  return hasRatesForCountry
    ? `None of this store's shipping rates for ${place} covers this order (its region, weight or subtotal): ` +
        "the merchant must add a shipping rate that does before it can ship this order there"
    : `This store has no shipping rate for ${place}: the merchant must add a shipping rate for ${country} ` +
        "(or for anywhere) in the store's admin before it can ship there";
};

export type PreflightInput = {
  lineCount: number;
  buyer: BuyerInput | null;
  fulfillment: FulfillmentState;
  options: readonly ShippingOption[] | null;
  /** The store has at least one rate for the destination's country or for anywhere (whether or not it matches). */
  hasRatesForCountry: boolean;
  offeredHandlers: readonly string[];
  selectedHandler: string | null;
};

/** Pure: the blockers other than line availability (which pricing reports per line). */
export const preflightMessages = ({
  lineCount,
  buyer,
  fulfillment,
  options,
  hasRatesForCountry,
  offeredHandlers,
  selectedHandler,
}: PreflightInput): UcpMessage[] => {
  const messages: UcpMessage[] = [];
  if (lineCount === 0) messages.push(missing("$.line_items", "Add at least one line item this store sells"));
  for (const field of REQUIRED_BUYER_FIELDS) {
    if (!buyer?.[field]) messages.push(missing(`$.buyer.${field}`, `Buyer ${field} is required`));
  }
  const method = "$.fulfillment.methods[0]";
  const { destination, selectedOptionId } = fulfillment;
  if (!destination) {
    const saved = fulfillment.offered?.map((d) => d.id).join(", ");
    messages.push(
      missing(
        `${method}.destinations`,
        saved
          ? `Choose a saved address (selected_destination_id: ${saved}) or add a shipping address`
          : "Add a shipping address (fulfillment destination or shipping_address)",
      ),
    );
  } else {
    const absent = missingAddressFields(destination);
    for (const field of absent) {
      messages.push(missing(`${method}.destinations[0].${field}`, `Shipping address ${field} is required`));
    }
    if (absent.length === 0 && options?.length === 0) {
      messages.push({
        type: "error",
        code: "address_undeliverable",
        content: undeliverableContent(
          destination.address_country ?? "",
          destination.address_region,
          hasRatesForCountry,
        ),
        severity: "recoverable",
        path: `${method}.destinations[0]`,
      });
    }
    if (options && options.length > 0) {
      const ids = options.map((o) => o.id).join(", ");
      const path = `${method}.groups[0].selected_option_id`;
      if (selectedOptionId === null) {
        messages.push(
          missing(path, `Choose a shipping option (selected_option_id or shipping_method_id): ${ids}`),
        );
      } else if (!options.some((o) => o.id === selectedOptionId)) {
        messages.push({
          type: "error",
          code: "fulfillment_option_unavailable",
          content: `Shipping option "${selectedOptionId}" is not offered for this address; choose one of: ${ids}`,
          severity: "recoverable",
          path,
        });
      }
    }
  }
  // seed §4 checks the rail choice on the completing call (payment_selection_required, no order); UCP says a
  // checkout with everything needed is ready_for_complete and `complete` carries the payment, so the missing
  // choice is only information here and never holds the checkout incomplete
  if (offeredHandlers.length > 1 && selectedHandler === null) {
    messages.push({
      type: "info",
      code: "payment_selection_required",
      content: `Select a payment handler when completing: payment.instruments[{ handler_id, selected: true }] with one of ${offeredHandlers.join(", ")}`,
      path: "$.payment.instruments",
    });
  }
  return messages;
};
