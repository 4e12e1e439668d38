import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { defineOperation } from "@/lib/core/operation";

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
  description: "Cancel a cart. Final: the cart cannot be read or changed afterwards.",
  scope: "store",
  input: CartIdInputSchema,
  mutates: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: { takesId: true, annotations: { readOnlyHint: false, destructiveHint: true } },
  run: requireCapability("dev.ucp.shopping.cart", async (ctx, input) => {
    const db = await getDb();
    const cart = await loadCartOrThrow(db, ctx, input.id);
    const body = await renderCart(db, ctx, cart);
    await db.cart.update({ where: { id: cart.id }, data: { status: "canceled" } });
    return { body };
  }),
});
