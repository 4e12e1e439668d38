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

export const AddressSchema = z
  .object({
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    street_address: z.string().max(500),
    extended_address: z.string().max(500).optional(),
    address_locality: z.string().max(200).describe("City"),
    address_region: z.string().max(200).optional().describe("State or region"),
    postal_code: z.string().max(40),
    address_country: z.string().length(2).describe("ISO 3166-1 alpha-2 country code, e.g. US"),
    phone_number: z.string().max(40).optional(),
  })
  .strict();

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
export type Address = z.infer<typeof AddressSchema>;

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
  shippingAddress?: Address;
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
