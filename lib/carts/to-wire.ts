import { itemTitle } from "@/lib/catalog/item-title";
import { successEnvelope } from "@/lib/core/envelope";
import type { Store } from "@/lib/generated/prisma/client";
import { storeEndpoint } from "@/lib/stores/store-endpoint";

import type { PricedCart } from "./price-cart";

// Cart → UCP wire shape (cart.json). Totals are integer minor units: exactly one subtotal and one total.

type MediaItem = { url?: string };

const firstImage = (media: unknown, baseUrl: string): string | undefined => {
  const url = Array.isArray(media) ? (media[0] as MediaItem | undefined)?.url : undefined;
  if (!url) return undefined;
  return /^https?:\/\//.test(url) ? url : `${baseUrl}${url}`;
};

export type CartRecord = {
  id: string;
  currency: string;
  expiresAt: Date;
  continueToken: string | null;
  lineIds: readonly string[];
};

/** The continue-in-browser page of a cart (seed §2: not a payment page): `{base_url}/s/<slug>/cart/<token>`. */
export const cartContinueUrl = (store: Pick<Store, "slug">, baseUrl: string, token: string): string =>
  `${storeEndpoint(store, baseUrl)}/cart/${token}`;

export const cartToWire = (
  cart: CartRecord,
  { lines, messages, discounts, discountTotal }: PricedCart,
  { store, baseUrl, ucpVersion }: { store: Store; baseUrl: string; ucpVersion: string },
) => {
  const wireLines = lines.map((line, i) => {
    const amount = line.variant.priceMinor * line.quantity;
    const image = firstImage(line.variant.product.media, baseUrl);
    return {
      id: cart.lineIds[i] ?? `line_${i}`,
      item: {
        id: line.variant.id,
        title: itemTitle(line.variant.product.title, line.variant.title),
        price: line.variant.priceMinor,
        ...(image ? { image_url: image } : {}),
      },
      quantity: line.quantity,
      totals: [
        { type: "subtotal", amount },
        { type: "total", amount },
      ],
    };
  });
  const subtotal = wireLines.reduce((sum, l) => sum + (l.totals[0]?.amount ?? 0), 0);
  return {
    ucp: successEnvelope(["dev.ucp.shopping.cart", "dev.ucp.shopping.discount"], {}, ucpVersion),
    id: cart.id,
    line_items: wireLines,
    currency: cart.currency,
    totals: [
      { type: "subtotal", amount: subtotal, display_text: "Subtotal" },
      // UCP totals: a discount entry is negative and present only when something was taken off
      ...(discountTotal > 0 ? [{ type: "discount", amount: -discountTotal, display_text: "Discount" }] : []),
      { type: "total", amount: subtotal - discountTotal, display_text: "Estimated total" },
    ],
    discounts,
    messages: [...messages],
    links: [],
    expires_at: cart.expiresAt.toISOString(),
    ...(cart.continueToken ? { continue_url: cartContinueUrl(store, baseUrl, cart.continueToken) } : {}),
  };
};
