import "server-only";

import { getDb } from "@/lib/config/db";
import { defineOperation, storeOf } from "@/lib/http/operation";

import { loadCartOrThrow, toLineRows } from "./load-cart";
import { priceLines } from "./price-lines";
import { UpdateCartInputSchema } from "./schemas";
import { cartToWire } from "./to-wire";

/**
 * update_cart / PUT /s/<slug>/carts/<id>: full replacement of the line items (UCP cart update).
 * Unknown variants are reported (item_unavailable) and left out; the previous lines are replaced atomically.
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
    const store = storeOf(ctx);
    const cart = await loadCartOrThrow(db, ctx, input.id);
    const { lines, messages } = await priceLines(db, store, input.line_items);
    const rows = toLineRows(lines);
    await db.$transaction([
      db.cartLineItem.deleteMany({ where: { cartId: cart.id } }),
      db.cartLineItem.createMany({ data: rows.map((r) => ({ ...r, cartId: cart.id })) }),
      db.cart.update({
        where: { id: cart.id },
        data: { ...(input.buyer === undefined ? {} : { buyer: input.buyer as object }) },
      }),
    ]);
    const body = cartToWire({ ...cart, lineIds: rows.map((r) => r.id) }, lines, messages, {
      store,
      baseUrl: ctx.baseUrl,
      ucpVersion: ctx.ucpVersion,
    });
    return { body };
  },
});
