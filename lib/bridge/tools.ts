import { z } from "zod";

import { withTermsFingerprint } from "./checkout-terms";
import { confirmPurchase, ConfirmPurchaseInputSchema, ConfirmPurchaseOutputSchema } from "./confirm-purchase";
import { platformCredentials, storeMcpPath, type BridgeContext } from "./context";
import {
  AddressSchema,
  BuyerSchema,
  compact,
  ItemsSchema,
  PriceFilterSchema,
  toFulfillment,
  toLineItems,
  toPostalAddress,
  toRawPriceFilter,
} from "./map-args";
import { BridgeInputError, toMinorUnits } from "./money";
import { withFormattedMoney } from "./present";
import { quotePurchase, QuotePurchaseInputSchema, QuotePurchaseOutputSchema } from "./quote-purchase";

// The bridge's shopping tools (seed §4 "Bridge" table): flat arguments in major units, each mapped to the raw
// surface the seed names ("Bridge to raw mapping") and called over HTTP like any agent would. Annotations follow
// the seed's "Bridge rules": read-only on searches and reads; destructive on confirm_purchase and the cancels;
// other writes additive; open-world wherever the call reaches the commerce service (all of them), which is where
// money moves.

export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

export type BridgeTool = {
  name: string;
  title: string;
  description: string;
  input: z.ZodType<Record<string, unknown>>;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run: (ctx: BridgeContext, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
};

/** A tool whose run sees its parsed arguments typed. */
const defineTool = <S extends z.ZodType<Record<string, unknown>>>(tool: {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run: (ctx: BridgeContext, args: z.output<S>) => Promise<Record<string, unknown>>;
}): BridgeTool => tool as unknown as BridgeTool;

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
const ADDITIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: true };
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: true };

const storeSlug = z
  .string()
  .min(1)
  .max(100)
  .describe("The store's slug (from a product's seller, e.g. metadata.svc_seller)");
const id = (what: string) => z.string().min(1).max(200).describe(what);
const context = z
  .record(z.string(), z.unknown())
  .optional()
  .describe("UCP context, e.g. {currency, address_country}");

const money = z.looseObject({ amount: z.number().int(), currency: z.string(), formatted: z.string() });
const ProductShape = z.looseObject({
  id: z.string(),
  title: z.string(),
  variants: z.array(z.looseObject({ id: z.string(), price: money.optional() })),
});
const ProductsOutput = z.looseObject({ products: z.array(ProductShape) });
const ProductOutput = z.looseObject({ product: ProductShape });
const LocationsOutput = z.looseObject({ locations: z.array(z.looseObject({ id: z.string() })) });
const total = z.looseObject({ type: z.string(), amount: z.number().int(), formatted: z.string().optional() });
const CartOutput = z.looseObject({ id: z.string(), line_items: z.array(z.looseObject({})) });
const CheckoutOutput = z.looseObject({
  id: z.string(),
  status: z.string(),
  currency: z.string(),
  line_items: z.array(z.looseObject({})),
  totals: z.array(total),
});
const OrderOutput = z.looseObject({ id: z.string() });

/** A raw tool on a store's MCP (or the global one when `store` is undefined), money formatted in the answer. */
const callShop = async (
  ctx: BridgeContext,
  store: string | undefined,
  tool: string,
  args: Record<string, unknown>,
  mutates = false,
) => {
  const answer = await ctx.shop.tool(store === undefined ? "/mcp" : storeMcpPath(store), tool, args, {
    mutates,
    credentials: platformCredentials(ctx),
    ...(ctx.headers ? { headers: ctx.headers } : {}),
  });
  return withFormattedMoney(answer.structuredContent);
};

const SearchProductsInput = z
  .object({
    query: z.string().max(256).optional().describe("Words to look for, e.g. 'trail lantern'"),
    filters: z
      .object({
        price: PriceFilterSchema.optional().describe(
          "Price range in major units, e.g. {max: 25, currency: 'USD'}",
        ),
        categories: z.array(z.string().max(200)).max(10).optional(),
        tags: z.array(z.string().max(100)).max(10).optional(),
        attributes: z
          .array(z.object({ name: z.string().max(100), value: z.string().max(200) }).strict())
          .max(10)
          .optional(),
        seller: z.string().max(200).optional().describe("A store's slug or name"),
        available: z.boolean().optional().describe("Default true: hide out-of-stock products"),
        payment: z.array(z.string().max(40)).max(10).optional().describe("Rails or coins, e.g. svc.card"),
      })
      .strict()
      .optional(),
    sort: z.enum(["relevance", "price_asc", "price_desc", "newest"]).optional(),
    pagination: z
      .object({ limit: z.number().int().min(1).max(50).optional(), cursor: z.string().max(2048).optional() })
      .strict()
      .optional(),
    context,
  })
  .strict();

const searchProducts = defineTool({
  name: "search_products",
  title: "Search products",
  description:
    "Find products across every store. Give a query, filters or both. Prices in filters are in major units with their currency (e.g. {max: 25, currency: 'USD'}). Each result's variants carry price.amount in minor units and price.formatted; buy a variant by its id in the store named by the product's seller.",
  input: SearchProductsInput,
  output: ProductsOutput,
  annotations: READ,
  run: async (ctx, { filters, ...rest }) => {
    const { price, ...otherFilters } = filters ?? {};
    const body = compact({
      ...rest,
      ...(filters
        ? {
            filters: compact({
              ...otherFilters,
              ...(price ? { price: toRawPriceFilter(price, "$.filters.price") } : {}),
            }),
          }
        : {}),
    });
    // seed §4: search_products → POST /catalog/search (global REST)
    const answer = await ctx.shop.rest<Record<string, unknown>>("POST", "/catalog/search", body, {
      mutates: false,
      credentials: platformCredentials(ctx),
      ...(ctx.headers ? { headers: ctx.headers } : {}),
    });
    return withFormattedMoney(answer);
  },
});

const lookupProducts = defineTool({
  name: "lookup_products",
  title: "Look up products",
  description:
    "Fetch products by id, handle, SKU or barcode (up to 50), across every store. Unknown ids are left out.",
  input: z.object({ ids: z.array(z.string().min(1).max(200)).min(1).max(50) }).strict(),
  output: ProductsOutput,
  annotations: READ,
  run: (ctx, { ids }) => callShop(ctx, undefined, "lookup_catalog", { catalog: { ids } }),
});

const getProduct = defineTool({
  name: "get_product",
  title: "Get a product",
  description:
    "Full detail of one product (variants, options, availability, prices in minor units with a formatted amount). With store_slug it asks that store; without, the global catalog.",
  input: z
    .object({
      id: id("A product or variant id"),
      store_slug: storeSlug.optional(),
      selected: z
        .array(z.object({ name: z.string().max(200), label: z.string().max(200) }).strict())
        .max(20)
        .optional()
        .describe("Chosen options, e.g. [{name: 'Size', label: 'M'}]"),
      context,
    })
    .strict(),
  output: ProductOutput,
  annotations: READ,
  run: (ctx, { store_slug, ...catalog }) =>
    callShop(ctx, store_slug, "get_product", { catalog: compact(catalog) }),
});

/** The service's location filters (ours: country ISO alpha-2, region, locality, services); it checks them too. */
const LocationFilters = z
  .object({
    country: z
      .string()
      .regex(/^\s*[A-Za-z]{2}\s*$/, "an ISO 3166-1 alpha-2 country code such as US")
      .optional(),
    region: z.string().trim().min(1).max(100).optional(),
    locality: z.string().trim().min(1).max(100).optional(),
    services: z.array(z.string().trim().min(1).max(60)).min(1).max(10).optional(),
  })
  .strict()
  .optional()
  .describe("Every filter given must match (text ignores case)");

const searchLocations = defineTool({
  name: "search_locations",
  title: "Search a store's locations",
  description:
    "A store's shops and pickup points: by words (query), by distance from a point in micro-degrees ({latitude_e6, longitude_e6, max_meters}; nearest first), by services offered (serves, e.g. ['pickup']) and by filters {country, region, locality, services} (all must match).",
  input: z
    .object({
      store_slug: storeSlug,
      query: z.string().max(200).optional(),
      distance: z
        .object({
          latitude_e6: z.number().int(),
          longitude_e6: z.number().int(),
          max_meters: z.number().int().min(1).optional(),
        })
        .strict()
        .optional(),
      serves: z.array(z.string().max(60)).max(10).optional(),
      filters: LocationFilters,
      pagination: z
        .object({
          limit: z.number().int().min(1).max(50).optional(),
          cursor: z.string().max(1024).optional(),
        })
        .strict()
        .optional(),
      context,
    })
    .strict(),
  output: LocationsOutput,
  annotations: READ,
  run: (ctx, { store_slug, ...catalog }) =>
    callShop(ctx, store_slug, "search_locations", { catalog: compact(catalog) }),
});

const lookupLocations = defineTool({
  name: "lookup_locations",
  title: "Look up a store's locations",
  description:
    "A store's locations by id. Unknown ids, and with filters {country, region, locality, services} those that do not match, are left out.",
  input: z
    .object({
      store_slug: storeSlug,
      ids: z.array(z.string().min(1).max(200)).min(1).max(50),
      filters: LocationFilters,
      context,
    })
    .strict(),
  output: LocationsOutput,
  annotations: READ,
  run: (ctx, { store_slug, ...catalog }) =>
    callShop(ctx, store_slug, "lookup_locations", { catalog: compact(catalog) }),
});

const createCart = defineTool({
  name: "create_cart",
  title: "Create a cart",
  description:
    "Start a cart in one store with variant ids and quantities. A cart holds no stock and takes no payment; turn it into a checkout with create_checkout {cart_id}.",
  input: z.object({ store_slug: storeSlug, items: ItemsSchema }).strict(),
  output: CartOutput,
  annotations: ADDITIVE,
  run: (ctx, { store_slug, items }) =>
    callShop(ctx, store_slug, "create_cart", { cart: { line_items: toLineItems(items) } }, true),
});

const updateCart = defineTool({
  name: "update_cart",
  title: "Replace a cart's items",
  description: "Set a cart's items (the whole list: items left out are removed).",
  input: z.object({ store_slug: storeSlug, id: id("The cart id"), items: ItemsSchema }).strict(),
  output: CartOutput,
  annotations: ADDITIVE,
  run: (ctx, { store_slug, id: cartId, items }) =>
    callShop(ctx, store_slug, "update_cart", { id: cartId, cart: { line_items: toLineItems(items) } }, true),
});

const getCart = defineTool({
  name: "get_cart",
  title: "Get a cart",
  description: "A cart's items and totals (minor units with formatted amounts).",
  input: z.object({ store_slug: storeSlug, id: id("The cart id") }).strict(),
  output: CartOutput,
  annotations: READ,
  run: (ctx, { store_slug, id: cartId }) => callShop(ctx, store_slug, "get_cart", { id: cartId }),
});

const cancelCart = defineTool({
  name: "cancel_cart",
  title: "Cancel a cart",
  description: "Discard a cart. It cannot be used afterwards.",
  input: z.object({ store_slug: storeSlug, id: id("The cart id") }).strict(),
  output: CartOutput,
  annotations: DESTRUCTIVE,
  run: (ctx, { store_slug, id: cartId }) => callShop(ctx, store_slug, "cancel_cart", { id: cartId }, true),
});

const checkoutFields = {
  buyer: BuyerSchema.optional().describe("Who buys: email (the receipt goes there), names, phone"),
  shipping_address: AddressSchema.optional().describe(
    "Where to ship, in the seed's form {line1, line2?, city, region?, postal_code, country} or UCP's {street_address, extended_address?, address_locality, address_region?, postal_code, address_country} (one form, not both); then choose an option by its id",
  ),
  fulfillment: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "UCP fulfillment object (advanced; overrides shipping_address / shipping_method_id). In a store that keeps addresses, {methods: [{type: 'shipping'}]} with the buyer's email lists the addresses you sent for that buyer before (destinations); pick one with {methods: [{type: 'shipping', selected_destination_id}]}",
    ),
  notes: z.string().max(2000).optional(),
};

const createCheckout = defineTool({
  name: "create_checkout",
  title: "Create a checkout",
  description:
    "Open a checkout in one store from a cart (cart_id) or from items. The answer lists what is still missing (messages), the shipping options once an address is set (fulfillment.methods[0].groups[0].options) and the totals in minor units with formatted amounts, and terms_fingerprint: pass it to confirm_purchase for the terms you show the buyer. Nothing is charged until confirm_purchase.",
  input: z
    .object({
      store_slug: storeSlug,
      cart_id: id("A cart from create_cart").optional(),
      items: ItemsSchema.optional(),
      ...checkoutFields,
    })
    .strict(),
  output: CheckoutOutput,
  annotations: ADDITIVE,
  run: async (ctx, { store_slug, cart_id, items, buyer, shipping_address, fulfillment, notes }) => {
    if ((cart_id === undefined) === (items === undefined)) {
      throw new BridgeInputError(
        "invalid_request",
        "Send either cart_id or items (exactly one of them)",
        cart_id === undefined ? "$.items" : "$.cart_id",
      );
    }
    const checkout = compact({
      ...(cart_id !== undefined ? { cart_id } : { line_items: toLineItems(items ?? []) }),
      buyer,
      fulfillment: toFulfillment({
        ...(shipping_address
          ? { shippingAddress: toPostalAddress(shipping_address, "$.shipping_address") }
          : {}),
        ...(fulfillment ? { fulfillment } : {}),
      }),
      notes,
    });
    return withTermsFingerprint(
      ctx,
      store_slug,
      await callShop(ctx, store_slug, "create_checkout", { checkout }, true),
    );
  },
});

const updateCheckout = defineTool({
  name: "update_checkout",
  title: "Update a checkout",
  description:
    "Change a checkout: buyer, shipping_address, shipping_method_id (an option id from fulfillment.methods[0].groups[0].options), discount codes, notes. Totals are re-priced; read them in the answer, with terms_fingerprint (what confirm_purchase compares: show the buyer these terms).",
  input: z
    .object({
      store_slug: storeSlug,
      id: id("The checkout id"),
      ...checkoutFields,
      shipping_method_id: z.string().min(1).max(200).optional(),
      discounts: z
        .object({ codes: z.array(z.string().min(1).max(100)).max(10) })
        .strict()
        .optional()
        .describe("The store's discount codes (the whole list)"),
    })
    .strict(),
  output: CheckoutOutput,
  annotations: ADDITIVE,
  run: async (
    ctx,
    {
      store_slug,
      id: checkoutId,
      buyer,
      shipping_address,
      shipping_method_id,
      fulfillment,
      discounts,
      notes,
    },
  ) => {
    const checkout = compact({
      buyer,
      fulfillment: toFulfillment({
        ...(shipping_address
          ? { shippingAddress: toPostalAddress(shipping_address, "$.shipping_address") }
          : {}),
        ...(shipping_method_id ? { shippingMethodId: shipping_method_id } : {}),
        ...(fulfillment ? { fulfillment } : {}),
      }),
      discounts,
      notes,
    });
    return withTermsFingerprint(
      ctx,
      store_slug,
      await callShop(ctx, store_slug, "update_checkout", { id: checkoutId, checkout }, true),
    );
  },
});

const cancelCheckout = defineTool({
  name: "cancel_checkout",
  title: "Cancel a checkout",
  description: "Abandon a checkout that is not completed. It cannot be completed afterwards.",
  input: z.object({ store_slug: storeSlug, id: id("The checkout id") }).strict(),
  output: CheckoutOutput,
  annotations: DESTRUCTIVE,
  run: (ctx, { store_slug, id: checkoutId }) =>
    callShop(ctx, store_slug, "cancel_checkout", { id: checkoutId }, true),
});

const getOrder = defineTool({
  name: "get_order",
  title: "Get an order",
  description:
    "An order placed through confirm_purchase: lines, totals, fulfillment and payment state. The platform key needs orders:read.",
  input: z.object({ store_slug: storeSlug, id: id("The order id (ord_…)") }).strict(),
  output: OrderOutput,
  annotations: READ,
  run: (ctx, { store_slug, id: orderId }) => callShop(ctx, store_slug, "get_order", { id: orderId }),
});

const requestOrderCancellation = defineTool({
  name: "request_order_cancellation",
  title: "Ask to cancel an order",
  description:
    "Ask the store to cancel an order placed through confirm_purchase, while none of it has shipped, with the buyer's reason. The answer is the order with the request under requests[]: approved (canceled; the money goes back through the rail that paid) or pending (the store reviews it; the outcome arrives as an order event). Once anything shipped, use request_order_refund. The platform key needs orders:request. Confirm with the buyer first: a cancellation cannot be undone.",
  input: z
    .object({
      store_slug: storeSlug,
      id: id("The order id (ord_…)"),
      reason: z.string().min(1).max(500).describe("Why, in the buyer's words"),
    })
    .strict(),
  output: OrderOutput,
  annotations: DESTRUCTIVE,
  run: (ctx, { store_slug, id: orderId, reason }) =>
    callShop(ctx, store_slug, "request_order_cancellation", { id: orderId, request: { reason } }, true),
});

const requestOrderRefund = defineTool({
  name: "request_order_refund",
  title: "Ask for a refund",
  description:
    "Ask the store to refund an order once any of it has shipped (a return, a damaged item), with the buyer's reason: everything paid and not refunded yet, or amount in major units with the order's currency (e.g. amount 12.5, currency 'USD'). The answer is the order with the request under requests[]: approved (a refund on its way back) or pending (the store reviews it; the outcome arrives as an order event). Before anything shipped, use request_order_cancellation. The platform key needs orders:request.",
  input: z
    .object({
      store_slug: storeSlug,
      id: id("The order id (ord_…)"),
      reason: z.string().min(1).max(500).describe("Why, in the buyer's words"),
      amount: z
        .union([z.number().positive(), z.string().min(1).max(40)])
        .optional()
        .describe("Major units, e.g. 12.5; default: everything left to refund"),
      currency: z.string().length(3).optional().describe("The order's currency, required with amount"),
    })
    .strict(),
  output: OrderOutput,
  annotations: DESTRUCTIVE,
  run: (ctx, { store_slug, id: orderId, reason, amount, currency }) => {
    if (amount !== undefined && currency === undefined) {
      throw new BridgeInputError(
        "invalid_request",
        "currency is required with amount (the order's currency, e.g. USD)",
        "$.currency",
      );
    }
    const request =
      amount === undefined || currency === undefined
        ? { reason }
        : { reason, amount: toMinorUnits(amount, currency, "$.amount"), currency: currency.toUpperCase() };
    return callShop(ctx, store_slug, "request_order_refund", { id: orderId, request }, true);
  },
});

const quotePurchaseTool = defineTool({
  name: "quote_purchase",
  title: "Quote a crypto purchase",
  description:
    "Crypto only, moves no money; needs the buyer's OAuth bearer. Quote 1 to 5 ready checkouts (one per store) for one Sui transaction: the total (minor units with formatted amounts), each coin leg (base units and whole coins), the unsigned transaction the buyer's wallet signs, quote_id (the prepared transaction's digest), continue_url (the wallet page where the buyer can sign instead) and next_steps. pay_with names one coin (e.g. USDC) that pays alone; buyer_address defaults to the wallet of the buyer's allowance. Quoting again replaces the previous quote: never have the buyer sign two.",
  input: QuotePurchaseInputSchema,
  output: QuotePurchaseOutputSchema,
  annotations: ADDITIVE,
  run: quotePurchase,
});

const confirmPurchaseTool = defineTool({
  name: "confirm_purchase",
  title: "Confirm a purchase (pay)",
  description:
    "Pay for one or more ready checkouts (status ready_for_complete); the bridge re-reads each checkout, signs the AP2 checkout mandate over its live terms and completes it. Card: the bridge charges only the terms you saw: give each checkout's terms_fingerprint from the create_checkout/update_checkout answer you showed the buyer (without it, the last one this bridge showed you); if anyone changed the checkout since (price, quantity, shipping, total), that checkout is refused uncharged with terms_changed and its new terms. An incomplete checkout is refused with what is missing (paths). payment_method 'card' (or svc.card) with pay_with = a payment-method token (test stores: pm_card_visa); without a token the answer gives a continue_url where the buyer pays. Crypto (the buyer's bearer): after quote_purchase and the buyer's wallet signed and submitted its transaction, payment_method 'crypto' (or svc.crypto) with transaction_digest (the same digest for every checkout of the quote) and payment_mandate_id (the buyer's allowance, get_intent_mandate; default the newest). A pending result means the transaction is not final yet: call again later with the same digest, NEVER pay again. payment_mandate_id on a card purchase applies the allowance's merchants and per-order maximum. Results are per checkout; calling again finishes only what is left and never charges twice. MOVES MONEY: confirm with the buyer first.",
  input: ConfirmPurchaseInputSchema,
  output: ConfirmPurchaseOutputSchema,
  annotations: DESTRUCTIVE,
  run: confirmPurchase,
});

/** Every shopping tool of the bridge, in the seed's order. */
export const SHOPPING_TOOLS: readonly BridgeTool[] = [
  searchProducts,
  lookupProducts,
  getProduct,
  searchLocations,
  lookupLocations,
  createCart,
  updateCart,
  getCart,
  cancelCart,
  createCheckout,
  updateCheckout,
  cancelCheckout,
  getOrder,
  requestOrderCancellation,
  requestOrderRefund,
  quotePurchaseTool,
  confirmPurchaseTool,
];

export { defineTool };
