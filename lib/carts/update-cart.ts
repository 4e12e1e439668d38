import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { CartOutputSchema } from "@/lib/ucp/output-schemas";

import { loadCartOrThrow, toLineRows } from "./load-cart";
import { priceCart } from "./price-cart";
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
  description:
    "Replace a cart's line items (full replacement: send every line you want to keep; get_cart first if unsure). Returns the updated cart with live totals; messages[] names lines that cannot be sold.",
  errors: ["not_found", "item_unavailable"],
  scope: "store",
  input: UpdateCartInputSchema,
  output: CartOutputSchema,
  mutates: true,
  storeFromCache: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "cart",
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.cart", async (ctx, input) => {
    const db = await getDb();
    const store = storeOf(ctx);
    const cart = await loadCartOrThrow(db, ctx, input.id);
    // discounts.codes replaces the set when sent ([] clears it); omitted leaves the codes as they are
    const codes = input.discounts?.codes ?? cart.discountCodes;
    const priced = await priceCart(db, store, input.line_items, codes, ctx.now);
    const { lines } = priced;
    const rows = toLineRows(lines);
    await db.$transaction([
      db.cartLineItem.deleteMany({ where: { cartId: cart.id } }),
      db.cartLineItem.createMany({ data: rows.map((r) => ({ ...r, cartId: cart.id })) }),
      db.cart.update({
        where: { id: cart.id },
        data: {
          discountCodes: priced.discounts.codes,
          ...(input.buyer === undefined ? {} : { buyer: input.buyer as object }),
        },
      }),
    ]);
    const body = cartToWire({ ...cart, lineIds: rows.map((r) => r.id) }, priced, {
      store,
      baseUrl: ctx.baseUrl,
      ucpVersion: ctx.ucpVersion,
    });
    return { body };
  }),
});
