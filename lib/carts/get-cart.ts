import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { defineOperation } from "@/lib/core/operation";

import { loadCartOrThrow, renderCart } from "./load-cart";
import { CartIdInputSchema } from "./schemas";

/** get_cart / GET /s/<slug>/carts/<id>: the cart re-priced live. @throws AppError not_found */
export const getCart = defineOperation({
  name: "get_cart",
  title: "Get cart",
  description: "Read a cart of this store by id, with live prices, availability and totals.",
  scope: "store",
  input: CartIdInputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: { takesId: true, annotations: { readOnlyHint: true } },
  run: requireCapability("dev.ucp.shopping.cart", async (ctx, input) => {
    const db = await getDb();
    const cart = await loadCartOrThrow(db, ctx, input.id);
    return { body: await renderCart(db, ctx, cart) };
  }),
});
