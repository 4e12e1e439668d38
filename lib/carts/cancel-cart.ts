import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { defineOperation } from "@/lib/core/operation";
import { CartOutputSchema } from "@/lib/ucp/output-schemas";

import { loadCartOrThrow, renderCart } from "./load-cart";
import { CartIdInputSchema } from "./schemas";

/**
 * cancel_cart / POST /s/<slug>/carts/<id>/cancel: returns the cart's last state; cancel is final and later calls
 * on the id answer not_found (UCP cart, seed §3 "cancel operations cannot be undone").
 * @throws AppError not_found
 */
export const cancelCart = defineOperation({
  name: "cancel_cart",
  title: "Cancel cart",
  description:
    "Cancel a cart. Final: the cart cannot be read or changed afterwards, so call it only when the buyer abandons it (a checkout made from it keeps its own lines). Returns the cart as it was.",
  errors: ["not_found"],
  scope: "store",
  input: CartIdInputSchema,
  output: CartOutputSchema,
  mutates: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.cart", async (ctx, input) => {
    const db = await getDb();
    const cart = await loadCartOrThrow(db, ctx, input.id);
    const body = await renderCart(db, ctx, cart);
    await db.cart.update({ where: { id: cart.id }, data: { status: "canceled" } });
    return { body };
  }),
});
