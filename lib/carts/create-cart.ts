import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { CartOutputSchema } from "@/lib/ucp/output-schemas";

import { CART_TTL_MS, toLineRows } from "./load-cart";
import { priceCart } from "./price-cart";
import { CreateCartInputSchema } from "./schemas";
import { cartToWire } from "./to-wire";

/**
 * create_cart / POST /s/<slug>/carts: a cart in one store with live prices (UCP cart; REST 201).
 * @throws AppError item_unavailable (200 error envelope, no cart) when no line can be sold
 */
export const createCart = defineOperation({
  name: "create_cart",
  title: "Create cart",
  description:
    "Create a cart in this store from line_items [{ item: { id: <variant_id> }, quantity }] (variant ids from search_catalog or get_product). Optional: a cart collects items; create_checkout also takes line_items directly. Prices and availability are live; totals are integer minor units. Returns the cart { id, line_items, totals, continue_url }; lines that cannot be sold are dropped and named in messages[]. Next: update_cart, or create_checkout with cart_id.",
  errors: ["item_unavailable"],
  scope: "store",
  input: CreateCartInputSchema,
  output: CartOutputSchema,
  mutates: true,
  storeFromCache: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "cart",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.cart", async (ctx, input) => {
    const db = await getDb();
    const store = storeOf(ctx);
    const priced = await priceCart(db, store, input.line_items, input.discounts?.codes ?? [], ctx.now);
    const { lines, messages } = priced;
    if (lines.length === 0) {
      // UCP cart: when no item can be added, answer with the error envelope and create nothing.
      const first = messages[0];
      throw new AppError(
        "item_unavailable",
        first?.content ?? "None of the line items can be sold by this store",
        {
          path: "$.line_items",
        },
      );
    }
    const cartId = newId("cart");
    const lineRows = toLineRows(lines);
    const cart = await db.cart.create({
      data: {
        id: cartId,
        storeId: store.id,
        principalId: ctx.principal.id,
        currency: store.currency,
        buyer: input.buyer === undefined ? undefined : (input.buyer as object),
        discountCodes: priced.discounts.codes,
        // the continue_url page is reached by this secret token, never by the cart id (ids appear in logs)
        continueToken: newId("cartToken"),
        expiresAt: new Date(ctx.now.getTime() + CART_TTL_MS),
        lineItems: { create: lineRows },
      },
    });
    const body = cartToWire({ ...cart, lineIds: lineRows.map((r) => r.id) }, priced, {
      store,
      baseUrl: ctx.baseUrl,
      ucpVersion: ctx.ucpVersion,
    });
    return { body, status: 201 };
  }),
});
