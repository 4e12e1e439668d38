import "server-only";

import { createHmac, timingSafeEqual } from "node:crypto";

import { getDb } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { getStoredSessionSecret } from "@/lib/oauth/server-keys";
import { cryptoReceiptsOf } from "@/lib/orders/crypto-receipts";
import { settlementNetwork, type SuiNetwork } from "@/lib/payments/crypto/coins";

import { PAGE_TOKEN, paidLinkHashOf } from "./checkout-record";
import { paymentPageDetailsOf, type PaymentPageDetails } from "./payment-page-details";

// The receipt the hosted payment page shows after the buyer paid. The page's link token dies with the payment
// (the checkout is completed), so the page carries a sealed receipt reference instead: the checkout id with an HMAC
// bound to the store, made only by the server that saw the link (a guessed or edited reference shows nothing).
// Whoever holds the sealed reference may see that receipt, as whoever held the payment link could see the order.
// The bare link opened again finds its receipt too: placing the order keeps a hash of the link's token.

/** How an order was paid, as a receipt says it: the card's brand and last four, or the coins and transaction. */
export type PaidWith =
  | { kind: "card"; brand: string | null; last4: string | null }
  | {
      kind: "crypto";
      coins: { symbol: string; decimals: number; amount: string }[];
      transaction: string;
      network: SuiNetwork;
    };

export type PaymentReceipt = {
  orderId: string;
  storeName: string;
  /** The store's country: the locale money and dates are shown in when the viewer's is unknown. */
  storeCountry: string;
  currency: string;
  placedAt: Date;
  lines: { title: string; quantity: number; amountMinor: number }[];
  totals: { type: string; amount: number; display_text?: string }[];
  totalMinor: number;
  rail: "card" | "crypto" | null;
  /** The provider's payment reference (PaymentIntent id). */
  reference: string | null;
  paidWith: PaidWith | null;
  details: PaymentPageDetails;
};

const SEALED = /^([A-Za-z0-9_-]{1,100})\.([A-Za-z0-9_-]{43})$/;

const macKey = async (): Promise<Buffer> =>
  createHmac("sha256", getEnv().NEXTAUTH_SECRET ?? (await getStoredSessionSecret()))
    .update("acs/payment-receipt/v1")
    .digest();

const mac = async (slug: string, checkoutId: string): Promise<string> =>
  createHmac("sha256", await macKey())
    .update(`${slug}\n${checkoutId}`)
    .digest("base64url");

/** The checkout a payment link belongs to (whatever its state), read before the buyer's step changes it. */
export const checkoutOfPaymentLink = async (slug: string, token: string): Promise<string | null> => {
  if (!PAGE_TOKEN.test(token)) return null;
  const db = await getDb();
  const session = await db.checkoutSession.findFirst({
    where: { continueToken: token, store: { slug } },
    select: { id: true },
  });
  return session?.id ?? null;
};

/** A sealed receipt reference for the page's URL after payment. */
export const sealReceipt = async (slug: string, checkoutId: string): Promise<string> =>
  `${checkoutId}.${await mac(slug, checkoutId)}`;

/** The receipt of a sealed reference: the order placed for that checkout in that store, or null. */
export const getPaymentReceipt = async (slug: string, sealed: string): Promise<PaymentReceipt | null> => {
  const match = SEALED.exec(sealed);
  if (!match) return null;
  const [, checkoutId, given] = match as unknown as [string, string, string];
  const expected = Buffer.from(await mac(slug, checkoutId));
  if (!timingSafeEqual(expected, Buffer.from(given))) return null;
  return receiptOfCheckout(slug, checkoutId);
};

/**
 * The receipt of a paid payment link opened again: the order of the checkout whose link this token was (its hash is
 * kept when the order is placed), or null for any other token. It shows what the pay page showed the link's holder
 * (lines, totals, email, ship-to), plus how it was paid: nothing the token did not already reveal.
 */
export const getReceiptOfPaidLink = async (slug: string, token: string): Promise<PaymentReceipt | null> => {
  if (!PAGE_TOKEN.test(token)) return null;
  const db = await getDb();
  const session = await db.checkoutSession.findFirst({
    where: { paidLinkHash: paidLinkHashOf(token), store: { slug } },
    select: { id: true },
  });
  return session ? receiptOfCheckout(slug, session.id) : null;
};

const receiptOfCheckout = async (slug: string, checkoutId: string): Promise<PaymentReceipt | null> => {
  const db = await getDb();
  const order = await db.order.findFirst({
    where: { checkoutId, store: { slug } },
    include: {
      store: { select: { name: true, country: true, mode: true, suiNetwork: true } },
      lineItems: { orderBy: { position: "asc" } },
      checkout: { select: { buyer: true, fulfillment: true } },
    },
  });
  if (!order) return null;
  const totals = (order.totals ?? []) as PaymentReceipt["totals"];
  return {
    orderId: order.id,
    storeName: order.store.name,
    storeCountry: order.store.country,
    currency: order.currency,
    placedAt: order.createdAt,
    lines: order.lineItems.map((l) => ({
      title: l.title,
      quantity: l.quantity,
      amountMinor: l.priceMinor * l.quantity,
    })),
    totals,
    totalMinor: totals.find((t) => t.type === "total")?.amount ?? 0,
    rail: order.handlerId === "svc.card" ? "card" : order.handlerId === "svc.crypto" ? "crypto" : null,
    reference: order.paymentRef,
    paidWith: await paidWithOf(order),
    details: paymentPageDetailsOf({
      buyer: order.buyer ?? order.checkout.buyer,
      fulfillment: order.checkout.fulfillment,
    }),
  };
};

/** The card (brand, last four) of the attempt that paid the order, or the coins and transaction of its payment. */
const paidWithOf = async (order: {
  id: string;
  handlerId: string | null;
  paymentRef: string | null;
  store: { mode: string; suiNetwork: string };
}): Promise<PaidWith | null> => {
  const db = await getDb();
  if (order.handlerId === "svc.card") {
    const attempt = order.paymentRef
      ? await db.paymentAttempt.findUnique({
          where: { providerRef: order.paymentRef },
          select: { cardBrand: true, cardLast4: true },
        })
      : null;
    return { kind: "card", brand: attempt?.cardBrand ?? null, last4: attempt?.cardLast4 ?? null };
  }
  const crypto = (await cryptoReceiptsOf(db, [order])).get(order.id);
  if (!crypto) return null;
  return {
    kind: "crypto",
    coins: crypto.crypto_payment.legs.map((l) => ({
      symbol: l.symbol,
      decimals: l.decimals,
      amount: l.amount,
    })),
    transaction: crypto.crypto_payment.transaction_digest,
    network: settlementNetwork(order.store),
  };
};
