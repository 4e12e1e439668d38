import { z } from "zod";

import {
  DiscountsInputSchema,
  LineItemInputSchema,
  MAX_CART_LINES,
  rejectDuplicateVariants,
} from "@/lib/carts/schemas";

import { isCountryCode } from "./countries";

// Checkout request schemas (UCP checkout.json request projections + the fulfillment, discount and buyer-consent
// extensions; seed §2 Checkout convenience fields). The only place they live. Unknown fields are stripped, not
// refused: UCP objects are open and an agent may send a whole response back as its update (CONTRACT §7.3).

const ID = z.string().min(1).max(200);
const text = (max: number) => z.string().trim().min(1, "must not be empty").max(max);

/** E.164: "+", country code, subscriber number; 8 to 15 digits in all (ITU-T E.164 §6). */
export const PHONE_PATTERN = /^\+[1-9]\d{7,14}$/;

const countryCode = z
  .string()
  .trim()
  .refine(isCountryCode, "unknown country: use an ISO 3166-1 alpha-2 code such as US or DE")
  .transform((c) => c.toUpperCase());

export const ConsentInputSchema = z.object({
  analytics: z.boolean().optional(),
  preferences: z.boolean().optional(),
  marketing: z.boolean().optional(),
  sale_of_data: z.boolean().optional(),
});

/** UCP buyer (+ buyer_consent extension). seed §2: `phone_number`, never `phone`. */
export const BuyerInputSchema = z.object({
  email: z.email("invalid email address").max(254).optional(),
  first_name: text(100).optional(),
  last_name: text(100).optional(),
  phone_number: z
    .string()
    .trim()
    .regex(PHONE_PATTERN, "invalid phone number: use E.164, e.g. +14155550123")
    .optional(),
  consent: ConsentInputSchema.optional(),
});

/** UCP postal address (postal_address.json) with a validated country. */
export const PostalAddressInputSchema = z.object({
  street_address: text(200).optional(),
  extended_address: text(200).optional(),
  address_locality: text(100).optional(),
  address_region: text(100).optional(),
  postal_code: text(20).optional(),
  address_country: countryCode.optional(),
  first_name: text(100).optional(),
  last_name: text(100).optional(),
  phone_number: text(30).optional(),
});

const DestinationInputSchema = PostalAddressInputSchema.extend({ id: ID.optional() });

/** seed §2 convenience form, mapped into the fulfillment extension (CONTRACT §18.1 #9). */
export const SeedShippingAddressSchema = z.object({
  line1: text(200),
  line2: text(200).optional(),
  city: text(100),
  region: text(100).optional(),
  postal_code: text(20),
  country: countryCode,
});

/** UCP fulfillment extension request shape. One shipping method is offered (no pickup, no multi-destination). */
export const FulfillmentInputSchema = z.object({
  methods: z
    .array(
      z.object({
        id: ID.optional(),
        type: z
          .literal("shipping", { error: "only shipping is offered by this service (no pickup)" })
          .optional(),
        line_item_ids: z.array(ID).max(MAX_CART_LINES).optional(),
        destinations: z.array(DestinationInputSchema).max(10).optional(),
        selected_destination_id: ID.nullable().optional(),
        groups: z
          .array(z.object({ id: ID.optional(), selected_option_id: ID.nullable().optional() }))
          .max(1, "one package group per method")
          .optional(),
      }),
    )
    .max(1, "one fulfillment method (shipping) is supported"),
});

/** Instruments are echoed without credentials (UCP §7.1: never echo the token); completion is issue #5. */
export const PaymentInputSchema = z.object({
  instruments: z
    .array(
      z.object({
        id: ID.optional(),
        handler_id: ID,
        type: z.string().min(1).max(50).optional(),
        selected: z.boolean().optional(),
      }),
    )
    .max(5),
});

const CheckoutLineItemInputSchema = LineItemInputSchema.extend({ id: ID.optional() });
const LineItemsSchema = z
  .array(CheckoutLineItemInputSchema)
  .min(1, "at least one line item")
  .max(MAX_CART_LINES)
  .superRefine(rejectDuplicateVariants);

const CommonFieldsSchema = z.object({
  buyer: BuyerInputSchema.optional(),
  fulfillment: FulfillmentInputSchema.optional(),
  shipping_address: SeedShippingAddressSchema.optional(),
  shipping_method_id: ID.optional(),
  discounts: DiscountsInputSchema.optional(),
  payment: PaymentInputSchema.optional(),
  notes: z.string().max(2000).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  signals: z.record(z.string(), z.unknown()).optional(),
  attribution: z.record(z.string(), z.string()).optional(),
});

export const CreateCheckoutInputSchema = CommonFieldsSchema.extend({
  cart_id: ID.optional(),
  // With a cart_id the cart's contents are used and line_items may be empty (UCP cart.md: the business MUST use
  // the cart's contents; its own example sends "line_items": []); without one, at least one line is needed.
  line_items: z
    .array(CheckoutLineItemInputSchema)
    .max(MAX_CART_LINES)
    .superRefine(rejectDuplicateVariants)
    .optional(),
}).superRefine((input, ctx) => {
  // UCP cart→checkout: cart_id or line_items (CONTRACT §18.1 #33)
  if (!input.cart_id && !input.line_items) {
    ctx.addIssue({ code: "custom", path: ["line_items"], message: "send line_items or a cart_id" });
  } else if (!input.cart_id && input.line_items?.length === 0) {
    ctx.addIssue({ code: "custom", path: ["line_items"], message: "at least one line item" });
  }
});

/** Update: an omitted field is left unchanged, a sent one replaces the stored value (CONTRACT §7.3, lenient). */
export const UpdateCheckoutInputSchema = CommonFieldsSchema.extend({
  id: ID,
  line_items: LineItemsSchema.optional(),
});

export const CheckoutIdInputSchema = z.object({ id: ID });

/** issue #5: complete_checkout. The instrument may carry its credential (token_credential.json); never echoed. */
export const CompleteCheckoutInputSchema = z.object({
  id: ID,
  payment: z
    .object({
      instruments: z
        .array(
          z.object({
            id: ID.optional(),
            handler_id: ID,
            type: z.string().min(1).max(50).optional(),
            selected: z.boolean().optional(),
            credential: z
              .object({ type: z.string().min(1).max(50), token: z.string().min(1).max(500) })
              .optional(),
          }),
        )
        .max(5),
    })
    .optional(),
  ap2: z
    .object({
      checkout_mandate: z.string().min(1).max(16_384).optional(),
      /** svc.crypto: the buyer's signed spend allowance (DECISIONS B6), base64 JSON {payload, signature}. */
      intent_mandate: z.string().min(1).max(16_384).optional(),
    })
    .optional(),
  signals: z.record(z.string(), z.unknown()).optional(),
  attribution: z.record(z.string(), z.string()).optional(),
});
export type CompleteCheckoutInput = z.infer<typeof CompleteCheckoutInputSchema>;

/** payment-intent / prepare_checkout_payment (seed §4 "Prepare crypto payment"). */
export const PrepareCheckoutPaymentInputSchema = z.object({
  id: ID,
  buyer_address: z.string().min(1).max(100),
  /** `auto` (default), a full coin type or a symbol from the store's accepted_coins, any case. */
  input_coin_type: z.string().min(1).max(300).optional(),
  /** The allowance to reserve on (list_my_allowances); absent → the newest active one that allows the store. */
  payment_mandate_id: z.string().min(1).max(100).optional(),
  /** The buyer's signed allowance, when the service has not stored it yet (it is stored on first use). */
  ap2: z.object({ intent_mandate: z.string().min(1).max(20_000).optional() }).optional(),
});
export type PrepareCheckoutPaymentInput = z.infer<typeof PrepareCheckoutPaymentInputSchema>;

/** prepare_combined_payment (account MCP): one transaction paying 2–5 checkouts, one per store. */
export const PrepareCombinedPaymentInputSchema = z.strictObject({
  checkouts: z
    .array(z.strictObject({ store_slug: z.string().min(1).max(100), checkout_id: ID }))
    .min(2, "a combined payment pays 2 to 5 checkouts (one per store)")
    .max(5, "a combined payment pays 2 to 5 checkouts (one per store)"),
  buyer_address: z.string().min(1).max(100),
  /** `auto` (default), or one coin (symbol or full type) every store accepts, which then pays every checkout. */
  input_coin_type: z.string().min(1).max(300).optional(),
  /** The buyer's allowance to reserve the whole group on (else the newest active one allowing every store). */
  payment_mandate_id: z.string().min(1).max(100).optional(),
  /** The buyer's signed allowance, when the service has not stored it yet (it is stored on first use). */
  ap2: z.strictObject({ intent_mandate: z.string().min(1).max(20_000).optional() }).optional(),
});
export type PrepareCombinedPaymentInput = z.infer<typeof PrepareCombinedPaymentInputSchema>;

export type BuyerInput = z.infer<typeof BuyerInputSchema>;
export type PostalAddressInput = z.infer<typeof PostalAddressInputSchema>;
export type FulfillmentInput = z.infer<typeof FulfillmentInputSchema>;
export type PaymentInput = z.infer<typeof PaymentInputSchema>;
export type CheckoutLineItemInput = z.infer<typeof CheckoutLineItemInputSchema>;
export type CreateCheckoutInput = z.infer<typeof CreateCheckoutInputSchema>;
export type UpdateCheckoutInput = z.infer<typeof UpdateCheckoutInputSchema>;
export type CommonCheckoutFields = z.infer<typeof CommonFieldsSchema>;
