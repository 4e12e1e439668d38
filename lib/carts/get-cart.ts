import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { defineOperation } from "@/lib/core/operation";
import { CartOutputSchema } from "@/lib/ucp/output-schemas";

import { loadCartOrThrow, renderCart } from "./load-cart";
import { CartIdInputSchema } from "./schemas";

/** get_cart / GET /s/<slug>/carts/<id>: the cart re-priced live. @throws AppError not_found */
export const getCart = defineOperation({
  name: "get_cart",
  title: "Get cart",
  description:
    "Read a cart of this store by id (from create_cart), with live prices, availability and totals; messages[] names lines that changed or cannot be sold.",
  errors: ["not_found"],
  scope: "store",
  input: CartIdInputSchema,
  output: CartOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.cart", async (ctx, input) => {
    const db = await getDb();
    const cart = await loadCartOrThrow(db, ctx, input.id);
    return { body: await renderCart(db, ctx, cart) };
  }),
});
