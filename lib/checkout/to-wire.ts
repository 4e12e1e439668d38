import { itemTitle } from "@/lib/catalog/item-title";
import { successEnvelope } from "@/lib/core/envelope";
import type { CheckoutSession, Store } from "@/lib/generated/prisma/client";
import { paymentHandlers } from "@/lib/stores/store-profile";
import type { CapabilityName } from "@/lib/ucp/capabilities";

import { GROUP_ID, listedDestinations, METHOD_ID, readFulfillmentState } from "./fulfillment";
import type { PricedCheckout, StoredInstrument } from "./price-checkout";

// Checkout → UCP wire shape (checkout.json + fulfillment, discount and buyer-consent extensions). The only
// place checkout rows become snake_case JSON. `ucp.payment_handlers` is required on checkout responses and is
// the store's handler list (the same builder as the store profile).

export const CHECKOUT_CAPABILITIES: readonly CapabilityName[] = [
  "dev.ucp.shopping.checkout",
  "dev.ucp.shopping.fulfillment",
  "dev.ucp.shopping.discount",
  "dev.ucp.shopping.buyer_consent",
];

type MediaItem = { url?: string };
const firstImage = (media: unknown, baseUrl: string): string | undefined => {
  const url = Array.isArray(media) ? (media[0] as MediaItem | undefined)?.url : undefined;
  if (!url) return undefined;
  return /^https?:\/\//.test(url) ? url : `${baseUrl}${url}`;
};

export type CheckoutWireContext = {
  store: Store;
  baseUrl: string;
  ucpVersion: string;
  order: { id: string; permalinkUrl: string } | null;
  /** issue #5: a session in requires_escalation carries the hosted payment link and the buyer-input message. */
  escalation?: { continueUrl: string; code: string; content: string } | null;
};

export type CheckoutWireSession = Pick<
  CheckoutSession,
  "id" | "currency" | "notes" | "cartId" | "expiresAt"
> & {
  buyer: unknown;
  fulfillment: unknown;
  context: unknown;
  attribution: unknown;
  paymentInstruments: readonly StoredInstrument[];
};

export const checkoutToWire = (
  session: CheckoutWireSession,
  priced: PricedCheckout,
  { store, baseUrl, ucpVersion, order, escalation = null }: CheckoutWireContext,
) => {
  const lineIds = priced.lines.map((l) => l.id);
  const fulfillment = readFulfillmentState(session.fulfillment);
  const { destination, selectedOptionId } = fulfillment;
  const groups =
    destination && priced.options
      ? [
          {
            id: GROUP_ID,
            line_item_ids: lineIds,
            options: priced.options.map((o) => ({
              id: o.id,
              title: o.title,
              ...(o.description ? { description: o.description } : {}),
              ...(o.carrier ? { carrier: o.carrier } : {}),
              totals: [
                { type: "subtotal", amount: o.amount },
                { type: "total", amount: o.amount },
              ],
            })),
            selected_option_id: selectedOptionId,
          },
        ]
      : [];
  return {
    ucp: successEnvelope(CHECKOUT_CAPABILITIES, { payment_handlers: paymentHandlers(store) }, ucpVersion),
    id: session.id,
    status: priced.status,
    currency: session.currency,
    line_items: priced.lines.map((line) => {
      const image = firstImage(line.variant.product.media, baseUrl);
      const { title: productTitle } = line.variant.product;
      return {
        id: line.id,
        item: {
          id: line.variant.id,
          title: itemTitle(productTitle, line.variant.title),
          price: line.unitPrice,
          ...(image ? { image_url: image } : {}),
        },
        quantity: line.quantity,
        totals: [
          { type: "subtotal", amount: line.amount },
          { type: "total", amount: line.amount },
        ],
      };
    }),
    ...(session.buyer ? { buyer: session.buyer as Record<string, unknown> } : {}),
    fulfillment: {
      methods: [
        {
          id: METHOD_ID,
          type: "shipping",
          line_item_ids: lineIds,
          destinations: listedDestinations(fulfillment),
          selected_destination_id: destination?.id ?? null,
          groups,
        },
      ],
    },
    discounts: { codes: priced.discounts.codes, applied: priced.discounts.applied },
    payment: { instruments: session.paymentInstruments },
    totals: priced.totals,
    messages: escalation
      ? [
          ...priced.messages,
          {
            type: "error" as const,
            code: escalation.code,
            content: escalation.content,
            severity: "requires_buyer_input" as const,
            path: "$.payment",
          },
        ]
      : priced.messages,
    links: [],
    ...(escalation ? { continue_url: escalation.continueUrl } : {}),
    expires_at: session.expiresAt.toISOString(),
    ...(session.notes !== null ? { notes: session.notes } : {}),
    ...(session.cartId ? { cart_id: session.cartId } : {}),
    ...(session.context ? { context: session.context as Record<string, unknown> } : {}),
    ...(session.attribution ? { attribution: session.attribution as Record<string, string> } : {}),
    ...(order ? { order: { id: order.id, permalink_url: order.permalinkUrl } } : {}),
  };
};
