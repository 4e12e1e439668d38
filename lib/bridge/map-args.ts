import { z } from "zod";

import { BridgeInputError, currencyOrThrow, toMinorUnits } from "./money";

// Flat bridge arguments → raw UCP arguments (seed §4 "Bridge to raw mapping"): `items` → `line_items` of
// `{item: {id}, quantity}`, a flat shipping address and option id → the fulfillment extension's method, price
// filters in major units → minor units with their currency. The input schemas live here too, beside the mapping
// that reads them, so the JSON Schema a model sees and the conversion cannot drift apart.

/** A major-unit amount as a model writes it: 12.5 or "12.50". */
export const MajorAmountSchema = z
  .union([z.number(), z.string().max(40)])
  .describe('An amount in major units (e.g. 12.5 or "12.50" for $12.50), never cents');

export const ItemsSchema = z
  .array(
    z
      .object({
        id: z.string().min(1).max(200).describe("A variant id from search_products or get_product"),
        quantity: z.number().int().min(1).max(10_000),
      })
      .strict(),
  )
  .min(1)
  .max(100)
  .describe("What to buy: variant ids and quantities");

/** The seed's shipping_address names (seed §2) → UCP postal_address names (the mapping REST applies). */
const SEED_ADDRESS_NAMES = {
  line1: "street_address",
  line2: "extended_address",
  city: "address_locality",
  region: "address_region",
  country: "address_country",
} as const;
type SeedAddressName = keyof typeof SEED_ADDRESS_NAMES;
const SEED_NAMES = Object.keys(SEED_ADDRESS_NAMES) as SeedAddressName[];

// Both forms in one schema (each member optional) so the JSON Schema a model reads lists every name it may use;
// toPostalAddress then checks that one form was used whole and nothing required is missing.
export const AddressSchema = z
  .object({
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    line1: z.string().max(500).optional().describe("Street and number (seed form; or street_address)"),
    line2: z.string().max(500).optional().describe("Apartment, suite (seed form; or extended_address)"),
    city: z.string().max(200).optional().describe("City (seed form; or address_locality)"),
    region: z.string().max(200).optional().describe("State or region (seed form; or address_region)"),
    street_address: z.string().max(500).optional().describe("Street and number (UCP form; or line1)"),
    extended_address: z.string().max(500).optional(),
    address_locality: z.string().max(200).optional().describe("City (UCP form; or city)"),
    address_region: z.string().max(200).optional().describe("State or region (UCP form; or region)"),
    postal_code: z.string().max(40).optional(),
    country: z.string().max(10).optional().describe("ISO 3166-1 alpha-2 country code, e.g. US (seed form)"),
    address_country: z.string().max(10).optional().describe("ISO 3166-1 alpha-2 country code (UCP form)"),
    phone_number: z.string().max(40).optional(),
  })
  .strict()
  .describe(
    "Either the seed's form {line1, line2?, city, region?, postal_code, country} or UCP's postal_address " +
      "{street_address, extended_address?, address_locality, address_region?, postal_code, address_country}; not both",
  );

/** A postal address in UCP's names, as the fulfillment extension's destination takes it. */
export type PostalAddress = {
  first_name?: string;
  last_name?: string;
  street_address: string;
  extended_address?: string;
  address_locality: string;
  address_region?: string;
  postal_code: string;
  address_country: string;
  phone_number?: string;
};

/**
 * A shipping address in either form → UCP's postal_address names. Mixing the forms, or leaving out a required
 * part, is refused with invalid_request naming the fields.
 * @throws BridgeInputError invalid_request
 */
export const toPostalAddress = (address: z.infer<typeof AddressSchema>, path: string): PostalAddress => {
  const present = (name: keyof typeof address) => address[name] !== undefined;
  const seed = SEED_NAMES.filter(present);
  const ucp = SEED_NAMES.map((name) => SEED_ADDRESS_NAMES[name]).filter(present);
  if (seed.length > 0 && ucp.length > 0) {
    throw new BridgeInputError(
      "invalid_request",
      `shipping_address mixes the seed's names (${seed.join(", ")}) with UCP's (${ucp.join(", ")}): use one form, ` +
        "either {line1, line2?, city, region?, postal_code, country} or {street_address, extended_address?, " +
        "address_locality, address_region?, postal_code, address_country}",
      `${path}.${seed[0]}`,
    );
  }
  const useSeed = seed.length > 0;
  const pick = (name: SeedAddressName) => (useSeed ? address[name] : address[SEED_ADDRESS_NAMES[name]]);
  const shown = (name: SeedAddressName) => (useSeed ? name : SEED_ADDRESS_NAMES[name]);
  const required: [string, string | undefined][] = [
    [shown("line1"), pick("line1")],
    [shown("city"), pick("city")],
    ["postal_code", address.postal_code],
    [shown("country"), pick("country")],
  ];
  const missing = required.filter(([, value]) => value === undefined || value.trim() === "").map(([n]) => n);
  if (missing.length > 0) {
    throw new BridgeInputError(
      "invalid_request",
      `shipping_address is missing ${missing.map((n) => `${path}.${n}`).join(", ")}`,
      `${path}.${missing[0]}`,
    );
  }
  const country = pick("country")!.trim();
  if (!/^[A-Za-z]{2}$/.test(country)) {
    throw new BridgeInputError(
      "invalid_request",
      "the country is an ISO 3166-1 alpha-2 code such as US",
      `${path}.${shown("country")}`,
    );
  }
  const line2 = pick("line2");
  const region = pick("region");
  return {
    ...(address.first_name !== undefined ? { first_name: address.first_name } : {}),
    ...(address.last_name !== undefined ? { last_name: address.last_name } : {}),
    street_address: pick("line1")!,
    ...(line2 !== undefined ? { extended_address: line2 } : {}),
    address_locality: pick("city")!,
    ...(region !== undefined ? { address_region: region } : {}),
    postal_code: address.postal_code!,
    address_country: country.toUpperCase(),
    ...(address.phone_number !== undefined ? { phone_number: address.phone_number } : {}),
  };
};

export const BuyerSchema = z
  .object({
    email: z.string().email().max(320).optional(),
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    phone_number: z.string().max(40).optional(),
  })
  .strict();

export const PriceFilterSchema = z
  .object({
    min: MajorAmountSchema.optional(),
    max: MajorAmountSchema.optional(),
    // optional here so that its absence gets the bridge's own code and message (toRawPriceFilter)
    currency: z
      .string()
      .max(10)
      .optional()
      .describe("ISO 4217 code the min/max are in (required with a price filter)"),
  })
  .strict();

export type Items = z.infer<typeof ItemsSchema>;

/**
 * A rail by its short name or by its handler id in `ucp.payment_handlers` (seed: payment_selection_required says
 * "read ucp.payment_handlers, retry with payment_method", so the ids found there are accepted as they are).
 */
export const PaymentMethodSchema = z.enum(["card", "crypto", "svc.card", "svc.crypto"]).optional();

/** The rail a payment_method names. */
export const railOf = (method: z.infer<typeof PaymentMethodSchema>): "card" | "crypto" | undefined =>
  method === undefined ? undefined : method === "svc.card" || method === "card" ? "card" : "crypto";

/** items → UCP line_items. */
export const toLineItems = (items: Items) => items.map(({ id, quantity }) => ({ item: { id }, quantity }));

/** A price filter in major units → the raw filter in minor units (currency required: B3, seed §4 bridge). */
export const toRawPriceFilter = (
  price: { min?: number | string; max?: number | string; currency?: string },
  path: string,
) => {
  if (price.currency === undefined || price.currency.trim() === "") {
    throw new BridgeInputError(
      "currency_required",
      "A price filter needs its currency (e.g. USD): amounts are in that currency's major units",
      `${path}.currency`,
    );
  }
  const currency = currencyOrThrow(price.currency, `${path}.currency`);
  const min = price.min === undefined ? undefined : toMinorUnits(price.min, currency, `${path}.min`);
  const max = price.max === undefined ? undefined : toMinorUnits(price.max, currency, `${path}.max`);
  if (min !== undefined && max !== undefined && min > max) {
    throw new BridgeInputError("invalid_amount", "the price filter's min is above its max", `${path}.min`);
  }
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}), currency };
};

/**
 * The fulfillment extension's shipping method from flat fields: a destination, a chosen option id, or both; a
 * raw `fulfillment` the caller sent wins (it is already in UCP's shape).
 */
export const toFulfillment = ({
  shippingAddress,
  shippingMethodId,
  fulfillment,
}: {
  shippingAddress?: PostalAddress;
  shippingMethodId?: string;
  fulfillment?: Record<string, unknown>;
}): Record<string, unknown> | undefined => {
  if (fulfillment !== undefined) return fulfillment;
  if (shippingAddress === undefined && shippingMethodId === undefined) return undefined;
  return {
    methods: [
      {
        type: "shipping",
        ...(shippingAddress ? { destinations: [shippingAddress] } : {}),
        ...(shippingMethodId ? { groups: [{ selected_option_id: shippingMethodId }] } : {}),
      },
    ],
  };
};

/** Drops undefined members (the raw schemas are strict about what they receive, not about absence). */
export const compact = <T extends Record<string, unknown>>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
