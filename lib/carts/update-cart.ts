import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { defineOperation, storeOf } from "@/lib/http/operation";

import { loadCartOrThrow, renderCart } from "./load-cart";
import { priceLines } from "./price-lines";
import { UpdateCartInputSchema } from "./schemas";

/**
 * update_cart / PUT /s/<slug>/carts/<id>: full replacement of the line items (UCP cart update).
 * Unknown variants are reported and left out; the previous lines are replaced atomically.
 * @throws AppError not_found
 */
export const updateCart = defineOperation({
  name: "update_cart",
  title: "Update cart",
  description: "Replace a cart's line items (full replacement: send every line you want to keep).",
  scope: "store",
  input: UpdateCartInputSchema,
  mutates: true,
  tier: "token",
  mcp: { namespace: "cart", takesId: true, annotations: { readOnlyHint: false, destructiveHint: false } },
  run: async (ctx, input) => {
    const db = await getDb();
    const cart = await loadCartOrThrow(db, ctx, input.id);
    const { lines } = await priceLines(db, storeOf(ctx), input.line_items);
    await db.$transaction([
      db.cartLineItem.deleteMany({ where: { cartId: cart.id } }),
      db.cartLineItem.createMany({
        data: lines.map((l, position) => ({
          id: newId("cartLine"),
          cartId: cart.id,
          variantId: l.variant.id,
          quantity: l.quantity,
          position,
        })),
      }),
      db.cart.update({
        where: { id: cart.id },
        data: { ...(input.buyer === undefined ? {} : { buyer: input.buyer as object }) },
      }),
    ]);
    const updated = await loadCartOrThrow(db, ctx, cart.id);
    const body = await renderCart(db, ctx, updated);
    // lines dropped as unknown are reported too (renderCart only sees stored lines)
    const dropped = input.line_items.length - lines.length;
    if (dropped > 0) {
      body.messages.push({
        type: "error",
        code: "item_unavailable",
        content: `${dropped} line item(s) refer to variants this store does not sell and were left out`,
        severity: "recoverable",
      });
    }
    return { body };
  },
});
