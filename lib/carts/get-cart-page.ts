import "server-only";

import { itemTitle } from "@/lib/catalog/item-title";
import { getDb } from "@/lib/config/db";
import { isValidStoreSlug } from "@/lib/stores/get-store-or-throw";

import { priceCart } from "./price-cart";

// Data for the continue-in-browser cart page (/s/<slug>/cart/<token>, the cart's `continue_url`). The token is
// the capability: whoever holds the link may view the cart (read-only), as with any shared cart link. A
// canceled or expired cart, or a token of another store, shows nothing.

export type CartPageLine = {
  title: string;
  quantity: number;
  unitPriceMinor: number;
  amountMinor: number;
  imageUrl: string | null;
  problem: string | null;
};

export type CartPage = {
  storeName: string;
  storeSlug: string;
  currency: string;
  lines: CartPageLine[];
  subtotalMinor: number;
  discountMinor: number;
  totalMinor: number;
  expiresAt: Date;
  notices: string[];
};

type MediaItem = { url?: string };

export const getCartPage = async (
  slug: string,
  token: string,
  now = new Date(),
): Promise<CartPage | null> => {
  if (!isValidStoreSlug(slug) || !/^ct_[A-Za-z0-9_-]{10,64}$/.test(token)) return null;
  const db = await getDb();
  const cart = await db.cart.findFirst({
    where: { continueToken: token, status: "active", expiresAt: { gt: now }, store: { slug } },
    include: { store: true, lineItems: { orderBy: { position: "asc" } } },
  });
  if (!cart) return null;
  const { lines, messages, discountTotal } = await priceCart(
    db,
    cart.store,
    cart.lineItems.map((l) => ({ item: { id: l.variantId }, quantity: l.quantity })),
    cart.discountCodes,
    now,
  );
  const problems = new Map(
    messages.flatMap((m) => {
      const index = /^\$\.line_items\[(\d+)\]/.exec(m.path ?? "")?.[1];
      return index === undefined ? [] : [[Number(index), m.content] as const];
    }),
  );
  const pageLines = lines.map((l, i): CartPageLine => {
    const { title } = l.variant.product;
    const media = l.variant.product.media;
    const url = Array.isArray(media) ? ((media[0] as MediaItem | undefined)?.url ?? null) : null;
    return {
      title: itemTitle(title, l.variant.title),
      quantity: l.quantity,
      unitPriceMinor: l.variant.priceMinor,
      amountMinor: l.variant.priceMinor * l.quantity,
      imageUrl: url,
      problem: problems.get(i) ?? null,
    };
  });
  const subtotalMinor = pageLines.reduce((a, l) => a + l.amountMinor, 0);
  return {
    storeName: cart.store.name,
    storeSlug: cart.store.slug,
    currency: cart.currency,
    lines: pageLines,
    subtotalMinor,
    discountMinor: discountTotal,
    totalMinor: subtotalMinor - discountTotal,
    expiresAt: cart.expiresAt,
    notices: messages.filter((m) => !m.path?.startsWith("$.line_items")).map((m) => m.content),
  };
};
