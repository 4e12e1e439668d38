import { assertUcpRequest, type RequestOperation } from "./ucp-schema";

// Requests as agents speaking the older UCP versions write them, for e2e/api/versions: the shapes those versions
// require (a 2026-01-11 create names its currency and its payment; an update is a whole checkout, PUT replaces),
// each checked against the version's schemas projected for the operation, so a test cannot send what the
// version does not define.

type Json = Record<string, unknown>;
export type OlderVersion = "2026-01-11" | "2026-01-23";

const CHECKOUT_REFS = [
  "shopping/fulfillment.json#/$defs/checkout",
  "shopping/discount.json#/$defs/checkout",
  "shopping/buyer_consent.json#/$defs/checkout",
];

/** Throws unless `body` is a request `version` allows for `operation`. */
export const assertOlderRequest = (version: OlderVersion, operation: RequestOperation, body: unknown) => {
  if (operation === "complete" && version === "2026-01-11") {
    // 01-11 completes with payment_data (+ ap2), not a checkout (01-11 openapi)
    assertUcpRequest("shopping/payment_data.json", operation, body, version);
    return;
  }
  for (const ref of CHECKOUT_REFS) assertUcpRequest(ref, operation, body, version);
};

/** 01-11 `payment` in a request: the card instrument (brand, digits) and which one is selected. */
export const CARD_0111 = {
  selected_instrument_id: "card-1",
  instruments: [{ id: "card-1", handler_id: "svc.card", type: "card", brand: "visa", last_digits: "4242" }],
};

/** 01-23 `payment` in a request: the selected card instrument. */
export const CARD_0123 = {
  instruments: [{ id: "card-1", handler_id: "svc.card", type: "card", selected: true }],
};

/**
 * The whole-checkout update an older agent sends after reading `read`: everything it read that a request may
 * carry, the shipping option `optionId` chosen, the card selected.
 */
export const wholeUpdate = (version: OlderVersion, read: Json, optionId: string) => {
  const fulfillment = read.fulfillment as {
    methods: {
      id: string;
      line_item_ids: string[];
      destinations: Json[];
      selected_destination_id: string;
      groups: { id: string }[];
    }[];
  };
  return {
    id: read.id,
    currency: read.currency,
    line_items: (read.line_items as { id: string; item: { id: string }; quantity: number }[]).map((l) => ({
      id: l.id,
      item: { id: l.item.id },
      quantity: l.quantity,
    })),
    buyer: read.buyer,
    discounts: { codes: (read.discounts as { codes?: string[] } | undefined)?.codes ?? [] },
    fulfillment: {
      methods: fulfillment.methods.map((m) => ({
        id: m.id,
        line_item_ids: m.line_item_ids,
        destinations: m.destinations,
        selected_destination_id: m.selected_destination_id,
        groups: m.groups.map((g) => ({ id: g.id, selected_option_id: optionId })),
      })),
    },
    payment: version === "2026-01-11" ? CARD_0111 : CARD_0123,
  };
};
