import type { CommonCheckoutFields, PostalAddressInput } from "./schemas";

// The stored fulfillment state of a checkout and how requests change it (UCP fulfillment extension, CONTRACT
// §11.1, plus the seed's convenience fields, CONTRACT §18.1 #9). One shipping method with one destination and
// one package group: the state is the chosen destination and the chosen option id.
// Precedence inside one request: the UCP `fulfillment` object first, then the seed fields `shipping_address` and
// `shipping_method_id` (the more explicit convenience form wins when both are sent).

export const METHOD_ID = "shipping";
export const GROUP_ID = "package_1";
const DEFAULT_DESTINATION_ID = "dest_1";

export type Destination = PostalAddressInput & { id: string };
export type FulfillmentState = {
  destination: Destination | null;
  selectedOptionId: string | null;
  /**
   * Addresses this caller saved for the buyer's e-mail in an earlier checkout of this store, offered when it asked
   * for shipping without sending one (lib/checkout/saved-addresses.ts); `selected_destination_id` picks one.
   * Absent when none are offered.
   */
  offered?: Destination[];
};

export const EMPTY_FULFILLMENT: FulfillmentState = { destination: null, selectedOptionId: null };

/** Fields a shipping address needs before rates can be quoted (reported one by one by the preflight). */
export const REQUIRED_ADDRESS_FIELDS = [
  "street_address",
  "address_locality",
  "postal_code",
  "address_country",
] as const;

export const readFulfillmentState = (stored: unknown): FulfillmentState => {
  if (!stored || typeof stored !== "object") return EMPTY_FULFILLMENT;
  const s = stored as Partial<FulfillmentState>;
  return {
    destination: s.destination ?? null,
    selectedOptionId: s.selectedOptionId ?? null,
    ...(s.offered && s.offered.length > 0 ? { offered: s.offered } : {}),
  };
};

/** The destinations a checkout lists: the chosen one first (the preflight's paths name it as [0]), then the
 * other offered ones. */
export const listedDestinations = ({ destination, offered = [] }: FulfillmentState): Destination[] =>
  destination ? [destination, ...offered.filter((d) => d.id !== destination.id)] : offered;

/** The id the request gave the destination it chose, if it named one (a shipping_address never does). */
export const sentDestinationId = (
  input: Pick<CommonCheckoutFields, "fulfillment" | "shipping_address">,
): string | undefined => {
  if (input.shipping_address) return undefined;
  const method = input.fulfillment?.methods[0];
  if (!method?.destinations) return undefined;
  return (
    method.destinations.find((d) => d.id !== undefined && d.id === method.selected_destination_id) ??
    method.destinations[0]
  )?.id;
};

const sameAddress = (a: Destination | null, b: Destination | null): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/** Applies a create/update request's fulfillment fields to the stored state (omitted = unchanged). */
export const mergeFulfillment = (
  previous: FulfillmentState,
  input: Pick<CommonCheckoutFields, "fulfillment" | "shipping_address" | "shipping_method_id">,
): FulfillmentState => {
  let { destination, selectedOptionId, offered } = previous;
  const method = input.fulfillment?.methods[0];
  if (input.fulfillment && !method) return EMPTY_FULFILLMENT; // methods: [] clears the fulfillment
  if (method?.destinations) {
    const chosen =
      method.destinations.find((d) => d.id !== undefined && d.id === method.selected_destination_id) ??
      method.destinations[0];
    destination = chosen ? { ...chosen, id: chosen.id ?? DEFAULT_DESTINATION_ID } : null;
    offered = undefined; // the agent's own list replaces the saved ones
  } else if (method?.selected_destination_id === null) {
    destination = null;
  } else if (typeof method?.selected_destination_id === "string") {
    // one of the offered saved addresses (an id naming none of them leaves the destination as it was)
    destination = offered?.find((d) => d.id === method.selected_destination_id) ?? destination;
  }
  const group = method?.groups?.[0];
  if (group && group.selected_option_id !== undefined) selectedOptionId = group.selected_option_id;
  if (input.shipping_address) {
    const a = input.shipping_address;
    offered = undefined;
    destination = {
      id: destination?.id ?? DEFAULT_DESTINATION_ID,
      street_address: a.line1,
      ...(a.line2 ? { extended_address: a.line2 } : {}),
      address_locality: a.city,
      ...(a.region ? { address_region: a.region } : {}),
      postal_code: a.postal_code,
      address_country: a.country,
    };
  }
  if (input.shipping_method_id !== undefined) selectedOptionId = input.shipping_method_id;
  // A new address keeps the chosen option id; the preflight reports it if the new destination does not offer it.
  if (!sameAddress(destination, previous.destination) && destination === null) selectedOptionId = null;
  return { destination, selectedOptionId, ...(offered && offered.length > 0 ? { offered } : {}) };
};

export const missingAddressFields = (destination: Destination): string[] =>
  REQUIRED_ADDRESS_FIELDS.filter((f) => !destination[f]);
