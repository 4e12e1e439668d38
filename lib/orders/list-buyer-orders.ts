import "server-only";

import { getDb } from "@/lib/config/db";
import { buyerPrincipalPrefix } from "@/lib/credentials/principal";
import type { OrderStatus, Prisma } from "@/lib/generated/prisma/client";
import { owedBackOfCheckouts, type OwedBackView } from "@/lib/payments/rails";

import { cryptoReceiptsOf, type CryptoReceipt } from "./crypto-receipts";
import { paidMinor } from "./settle-refund";

// The buyer's orders page (/account/orders): the orders of checkouts the buyer's agents created with (or bound to)
// the buyer's bearer, and those the buyer paid themselves on the wallet page, across every store (each agent reads
// its own with list_my_orders on /account/mcp), with what a person wants to see on one screen: items, totals, how
// it was paid, money returned or still owed back, and what happened when; one combined payment's orders together.

/**
 * Orders that belong to a buyer: their checkout was created (or bound) by any of the buyer's agents (principal
 * `buyer:<id>:agent:<client>`), or under the buyer alone (`buyer:<id>`: created before tokens were bound to the
 * agent, or bound when the signed-in buyer paid it on the wallet page). Only the buyer's own pages read all of
 * them; an agent reads its own (lib/orders/my-orders.ts).
 */
export const buyerOrdersWhere = (buyerId: string): Prisma.OrderWhereInput => ({
  OR: [
    { principalId: `buyer:${buyerId}` },
    { principalId: { startsWith: buyerPrincipalPrefix(buyerId) } },
    // a platform's checkout that this buyer's agent bound and paid (DECISIONS B17)
    { boundPrincipalId: { startsWith: buyerPrincipalPrefix(buyerId) } },
    // a platform's checkout the buyer paid themselves on the wallet page (lib/checkout/crypto/wallet-page.ts)
    { boundPrincipalId: `buyer:${buyerId}` },
  ],
});

export const ORDER_STATUSES = ["placed", "paid", "fulfilled", "delivered", "canceled", "refunded"] as const;

/** Newest orders shown on one page. */
export const BUYER_ORDERS_PAGE = 50;

type Total = { type: string; amount: number; display_text?: string };

export type BuyerOrderView = {
  id: string;
  checkoutId: string;
  store: { slug: string; name: string };
  status: OrderStatus;
  currency: string;
  createdAt: Date;
  lines: {
    id: string;
    title: string;
    quantity: number;
    canceled: number;
    fulfilled: number;
    amountMinor: number;
  }[];
  totals: Total[];
  totalMinor: number;
  payment: {
    rail: "card" | "crypto" | null;
    /** PaymentIntent id (card) or transaction digest (crypto). */
    reference: string | null;
    paidMinor: number;
    /** The card paid with (brand, last four), when the provider reported it. */
    card: { brand: string; last4: string } | null;
  };
  /** Money going back: pending (on its way through the rail), completed, or failed (the provider refused it). */
  refunds: {
    id: string;
    type: string;
    status: string;
    amountMinor: number;
    at: Date;
    description: string | null;
  }[];
  refundedMinor: number;
  /** Refunds written but not yet paid back by the rail: money owed back to the buyer. */
  owedMinor: number;
  /**
   * Crypto owed back for this checkout (a refund, or a second payment that could not pay): the merchant sends the
   * coins back and closes it with the refund transaction; per coin, in base units with the coin's decimals.
   */
  cryptoOwedBack: OwedBackView[];
  /** Crypto orders: this order's legs of the transaction and, for a combined payment, its group. */
  crypto: CryptoReceipt | null;
  /**
   * The combined payment that paid it (one transaction for several stores), named for people: every store of the
   * group with its order (null while that checkout is not completed yet).
   */
  paymentGroup: {
    id: string;
    stores: { checkoutId: string; storeName: string; orderId: string | null }[];
  } | null;
  timeline: { at: Date; title: string; detail: string | null }[];
};

const EVENT_TITLES: Record<string, string> = {
  "order.placed": "Order placed",
  "order.paid": "Payment received",
  "order.fulfilled": "Shipped",
  "order.delivered": "Delivered",
  "order.canceled": "Canceled",
  "order.refunded": "Refunded",
};

const FULFILLMENT_TITLES: Record<string, string> = {
  shipped: "Shipped",
  in_transit: "In transit",
  delivered: "Delivered",
  failed_attempt: "Delivery attempt failed",
};

const titleOf = (raw: string, table: Record<string, string>) =>
  table[raw] ?? raw.replace(/^order\./, "").replace(/_/g, " ");

const railOf = (handlerId: string | null): BuyerOrderView["payment"]["rail"] =>
  handlerId === "svc.card" ? "card" : handlerId === "svc.crypto" ? "crypto" : null;

export type BuyerOrderFilter = { store?: string; status?: string };

/** Where an "older orders" page starts: just after the last order shown (created at, id), opaque in the link. */
const encodeCursor = (order: { createdAt: Date; id: string }): string =>
  Buffer.from(`${order.createdAt.getTime()}.${order.id}`).toString("base64url");

const decodeCursor = (cursor: string): { createdAt: Date; id: string } | null => {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const match = /^(\d{1,15})\.(ord_[A-Za-z0-9_-]{1,64})$/.exec(
    Buffer.from(cursor, "base64url").toString("utf8"),
  );
  return match ? { createdAt: new Date(Number(match[1])), id: match[2]! } : null;
};

export type BuyerOrdersPage = {
  orders: BuyerOrderView[];
  /** The link cursor of the next (older) page, or null on the last page. */
  older: string | null;
  /** The `before` cursor was not one of ours (a hand-edited link): the first page is shown instead. */
  invalidCursor: boolean;
};

/** One page of the buyer's orders, newest first; `before` continues after the page that ended there. */
export const listBuyerOrdersPage = async (
  buyerId: string,
  filter: BuyerOrderFilter = {},
  { before, pageSize = BUYER_ORDERS_PAGE }: { before?: string; pageSize?: number } = {},
): Promise<BuyerOrdersPage> => {
  const cursor = before ? decodeCursor(before) : null;
  const { rows, more } = await findBuyerOrders(buyerId, filter, cursor, pageSize);
  return {
    orders: await toViews(rows),
    older: more && rows.length > 0 ? encodeCursor(rows.at(-1)!) : null,
    invalidCursor: Boolean(before) && !cursor,
  };
};

/**
 * The signed-in buyer's newest orders (one page), filtered by store slug (an unknown one: none) and status (a value
 * that is not an order status is ignored).
 */
export const listBuyerOrders = async (
  buyerId: string,
  filter: BuyerOrderFilter = {},
): Promise<BuyerOrderView[]> => (await listBuyerOrdersPage(buyerId, filter)).orders;

const findBuyerOrders = async (
  buyerId: string,
  filter: BuyerOrderFilter,
  cursor: { createdAt: Date; id: string } | null,
  pageSize: number,
) => {
  const db = await getDb();
  const status = (ORDER_STATUSES as readonly string[]).includes(filter.status ?? "")
    ? (filter.status as OrderStatus)
    : undefined;
  const where: Prisma.OrderWhereInput = {
    ...buyerOrdersWhere(buyerId),
    ...(filter.store ? { store: { slug: filter.store } } : {}),
    ...(status ? { status } : {}),
    ...(cursor
      ? {
          AND: [
            {
              OR: [
                { createdAt: { lt: cursor.createdAt } },
                { createdAt: cursor.createdAt, id: { lt: cursor.id } },
              ],
            },
          ],
        }
      : {}),
  };
  const found = await db.order.findMany({
    where,
    include: {
      store: { select: { slug: true, name: true } },
      lineItems: { orderBy: { position: "asc" } },
      fulfillmentEvents: { orderBy: { occurredAt: "asc" } },
      adjustments: { orderBy: { occurredAt: "asc" } },
      events: { orderBy: { sequence: "asc" }, select: { kind: true, createdAt: true } },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: pageSize + 1,
  });
  return { rows: found.slice(0, pageSize), more: found.length > pageSize };
};

const groupOf = (
  receipt: CryptoReceipt | undefined,
  storeNames: Map<string, string>,
): BuyerOrderView["paymentGroup"] => {
  const group = receipt?.payment_group;
  if (!group) return null;
  return {
    id: group.id,
    stores: group.checkouts.map((c) => ({
      checkoutId: c.checkout_id,
      storeName: storeNames.get(c.store_slug) ?? c.store_slug,
      orderId: c.order_id,
    })),
  };
};

/**
 * The page's orders as it shows them: an order alone, or the orders of one combined payment together (in the place
 * of the newest of them), so one payment for several stores reads as one purchase.
 */
export const groupByPayment = (
  orders: readonly BuyerOrderView[],
): ({ kind: "order"; order: BuyerOrderView } | { kind: "group"; id: string; orders: BuyerOrderView[] })[] => {
  const out: ReturnType<typeof groupByPayment> = [];
  const groups = new Map<string, BuyerOrderView[]>();
  for (const order of orders) {
    const id = order.paymentGroup?.id;
    if (!id) {
      out.push({ kind: "order", order });
      continue;
    }
    const members = groups.get(id);
    if (members) {
      members.push(order);
      continue;
    }
    const fresh = [order];
    groups.set(id, fresh);
    out.push({ kind: "group", id, orders: fresh });
  }
  return out;
};

const toViews = async (
  rows: Awaited<ReturnType<typeof findBuyerOrders>>["rows"],
): Promise<BuyerOrderView[]> => {
  const db = await getDb();
  // the attempt that paid each order carries the card's brand and last four (payment_attempts.provider_ref)
  const refs = rows.flatMap((o) => (o.paymentRef ? [o.paymentRef] : []));
  const attempts = refs.length
    ? await db.paymentAttempt.findMany({
        where: { providerRef: { in: refs } },
        select: { providerRef: true, cardBrand: true, cardLast4: true },
      })
    : [];
  const owedRows = await owedBackOfCheckouts(
    db,
    rows.map((o) => o.checkoutId),
  );
  const receipts = await cryptoReceiptsOf(db, rows);
  const groupSlugs = [
    ...new Set(
      [...receipts.values()].flatMap((r) => r.payment_group?.checkouts.map((c) => c.store_slug) ?? []),
    ),
  ];
  const storeNames = new Map(
    groupSlugs.length
      ? (
          await db.store.findMany({ where: { slug: { in: groupSlugs } }, select: { slug: true, name: true } })
        ).map((st) => [st.slug, st.name])
      : [],
  );
  const cardOf = new Map(
    attempts.flatMap((a) =>
      a.providerRef && a.cardBrand && a.cardLast4
        ? [[a.providerRef, { brand: a.cardBrand, last4: a.cardLast4 }] as const]
        : [],
    ),
  );
  return rows.map((o) => {
    const totals = (o.totals ?? []) as Total[];
    const owed = owedRows.filter((r) => r.checkoutId === o.checkoutId);
    const openOwed = new Set(owed.filter((r) => r.status === "open").map((r) => r.id));
    const refunds = o.adjustments
      .filter((a) => a.refundMinor > 0)
      .map((a) => ({
        id: a.id,
        type: a.type,
        // a crypto refund is recorded as owed back: it is on its way until the merchant's transaction closes it
        status: a.status === "completed" && a.refundRef && openOwed.has(a.refundRef) ? "pending" : a.status,
        amountMinor: a.refundMinor,
        at: a.occurredAt,
        description: a.description,
      }));
    const timeline = [
      ...o.events.map((e) => ({ at: e.createdAt, title: titleOf(e.kind, EVENT_TITLES), detail: null })),
      ...o.fulfillmentEvents.map((e) => ({
        at: e.occurredAt,
        title: titleOf(e.type, FULFILLMENT_TITLES),
        detail: [e.carrier, e.trackingNumber, e.description].filter(Boolean).join(" · ") || null,
      })),
    ].sort((a, b) => a.at.getTime() - b.at.getTime());
    return {
      id: o.id,
      checkoutId: o.checkoutId,
      store: o.store,
      status: o.status,
      currency: o.currency,
      createdAt: o.createdAt,
      lines: o.lineItems.map((l) => ({
        id: l.id,
        title: l.title,
        quantity: l.quantity,
        canceled: l.quantityCanceled,
        fulfilled: l.quantityFulfilled,
        amountMinor: l.priceMinor * l.quantity,
      })),
      totals,
      totalMinor: totals.find((t) => t.type === "total")?.amount ?? 0,
      payment: {
        rail: railOf(o.handlerId),
        reference: o.paymentRef,
        paidMinor: paidMinor(o),
        card: (o.paymentRef && cardOf.get(o.paymentRef)) || null,
      },
      refunds,
      refundedMinor: refunds.filter((r) => r.status === "completed").reduce((s, r) => s + r.amountMinor, 0),
      owedMinor: refunds.filter((r) => r.status === "pending").reduce((s, r) => s + r.amountMinor, 0),
      cryptoOwedBack: owed,
      crypto: receipts.get(o.id) ?? null,
      paymentGroup: groupOf(receipts.get(o.id), storeNames),
      timeline,
    };
  });
};

/** The stores the buyer has orders in, for the store filter. */
export const listBuyerOrderStores = async (buyerId: string): Promise<{ slug: string; name: string }[]> => {
  const db = await getDb();
  return db.store.findMany({
    where: { orders: { some: buyerOrdersWhere(buyerId) } },
    select: { slug: true, name: true },
    orderBy: { name: "asc" },
  });
};
