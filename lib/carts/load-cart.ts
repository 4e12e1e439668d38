import "server-only";

import type { Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { storeOf, type OperationContext } from "@/lib/core/operation";

import { priceCart } from "./price-cart";
import type { PricedLine } from "./price-lines";
import { cartToWire } from "./to-wire";

export const CART_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Stored rows for priced lines, in order; their ids are the cart's line ids on the wire. */
export const toLineRows = (lines: readonly PricedLine[]) =>
  lines.map((l, position) => ({
    id: newId("cartLine"),
    variantId: l.variant.id,
    quantity: l.quantity,
    position,
  }));

/**
 * The caller's active cart in this store. Another store's cart, another principal's cart, a canceled or an
 * expired cart are all `not_found` (UCP cart: 200 + unrecoverable), so ids leak nothing across tenants.
 * @throws AppError not_found
 */
export const loadCartOrThrow = async (db: Db, ctx: OperationContext, id: string) => {
  const store = storeOf(ctx);
  const cart = await db.cart.findFirst({
    where: {
      id,
      storeId: store.id,
      principalId: ctx.principal.id,
      status: "active",
      expiresAt: { gt: ctx.now },
    },
    include: { lineItems: { orderBy: { position: "asc" } } },
  });
  if (!cart) throw new AppError("not_found", `No cart "${id}" in this store`, { path: "$.id" });
  return cart;
};

/** Re-prices a stored cart and renders it. */
export const renderCart = async (
  db: Db,
  ctx: OperationContext,
  cart: Awaited<ReturnType<typeof loadCartOrThrow>>,
) => {
  const store = storeOf(ctx);
  const priced = await priceCart(
    db,
    store,
    cart.lineItems.map((l) => ({ item: { id: l.variantId }, quantity: l.quantity })),
    cart.discountCodes,
    ctx.now,
  );
  const lineIds = cart.lineItems
    .filter((l) => priced.lines.some((p) => p.variant.id === l.variantId))
    .map((l) => l.id);
  return cartToWire({ ...cart, lineIds }, priced, {
    store,
    baseUrl: ctx.baseUrl,
    ucpVersion: ctx.ucpVersion,
  });
};
