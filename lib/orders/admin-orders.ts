import "server-only";

import { z } from "zod";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Prisma, Store } from "@/lib/generated/prisma/client";
import { listCapturedMail } from "@/lib/mail/send-mail";
import { listDeliveries, type DeliveryLogEntry } from "@/lib/webhooks/list-deliveries";

import { cancelOrder } from "./cancel-order";
import { buyerEmailOf } from "./confirmation-mail";
import { principalNames } from "./dashboard-figures";
import { ORDER_STATUSES } from "./list-buyer-orders";
import { decideOrderRequest, type RequestDecision } from "./order-requests";
import { recordFulfillmentEvent } from "./record-fulfillment";
import { refundOrder } from "./refund-order";
import { paidMinor, refundedMinor } from "./settle-refund";
import { ORDER_INCLUDE, type OrderRecord } from "./to-wire";

// The merchant admin's orders: a filtered, paginated list, an order's detail with its timeline (events, webhook
// deliveries, payments, fulfilment, adjustments) and the actions fulfil, cancel and refund. Every function takes the
// signed-in account and checks its role in the store first; the actions then call the same domain operations the
// API and the CLI use (record-fulfillment.ts, cancel-order.ts, refund-order.ts), which hold every rule. Staff
// fulfil; cancelling and refunding send money back, so only owners (and the operator) may.

export const ADMIN_ORDERS_PAGE = 25;
export const RAILS = ["svc.card", "svc.crypto"] as const;

const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const day = z.preprocess(
  blankToUndefined,
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date such as 2026-05-31")
    .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "Not a calendar date")
    .optional(),
);

/**
 * The status filter's value for every order but the canceled ones: the orders the dashboard counts, so a dashboard
 * row opens exactly the orders behind its figures.
 */
export const NOT_CANCELED = "not_canceled";

export const OrderFilterSchema = z.object({
  status: z.preprocess(blankToUndefined, z.enum([...ORDER_STATUSES, NOT_CANCELED]).optional()),
  from: day,
  to: day,
  rail: z.preprocess(blankToUndefined, z.enum(RAILS).optional()),
  agent: z.preprocess(blankToUndefined, z.string().max(2000).optional()),
  q: z.preprocess(blankToUndefined, z.string().trim().max(200).optional()),
  page: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(100_000).default(1)),
});
export type OrderFilter = z.infer<typeof OrderFilterSchema>;

const dayStart = (d: string) => new Date(`${d}T00:00:00.000Z`);
const nextDay = (d: string) => new Date(dayStart(d).getTime() + 86_400_000);

export type AdminOrderRow = {
  id: string;
  createdAt: Date;
  status: string;
  currency: string;
  totalMinor: number;
  buyerEmail: string | null;
  /** The buyer's first and last name as the checkout gave them, when it did. */
  buyerName: string | null;
  rail: string | null;
  agent: string | null;
  /** Who placed it (lib/credentials/principal.ts id). */
  principalId: string;
  /** What the agent's request waiting for the store asks for, if one waits (lib/orders/order-requests.ts). */
  waiting: "cancellation" | "refund" | null;
};

/** A row of the admin's list: who placed it named as the dashboard names it (key, OAuth client or consent). */
export type AdminOrderListRow = AdminOrderRow & { agentName: string | null };

const buyerNameOf = (buyer: unknown): string | null => {
  const b = (buyer ?? {}) as { first_name?: unknown; last_name?: unknown };
  const name = [b.first_name, b.last_name]
    .filter((p): p is string => typeof p === "string" && p.trim() !== "")
    .join(" ");
  return name || null;
};

const totalOf = (totals: unknown): number =>
  (totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount ?? 0;

/**
 * A page of the store's orders, newest first, with the agents seen in the store (for the filter).
 * @throws AppError store_not_found, invalid_request (a filter; path names it)
 */
export const listStoreOrders = async (account: AccountSummary, slug: string, raw: unknown) => {
  const { store } = await storeForAccount(account, slug, "staff");
  const page = await ordersOfStore(store, raw);
  const names = await principalNames(await getDb(), [...new Set(page.orders.map((o) => o.principalId))]);
  const orders: AdminOrderListRow[] = page.orders.map((o) => ({
    ...o,
    agentName: names.get(o.principalId) ?? null,
  }));
  return { ...page, orders };
};

/**
 * The same page for a store already authorised (the merchant API's key is the store's).
 * @throws AppError invalid_request (a filter; path names it)
 */
export const ordersOfStore = async (store: Store, raw: unknown) => {
  const parsed = OrderFilterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${issue.path.join(".")}` });
  }
  const filter = parsed.data;
  const where: Prisma.OrderWhereInput = {
    storeId: store.id,
    ...(filter.status === NOT_CANCELED
      ? { status: { not: "canceled" } }
      : filter.status
        ? { status: filter.status }
        : {}),
    ...(filter.rail ? { handlerId: filter.rail } : {}),
    ...(filter.agent ? { checkout: { agentProfile: filter.agent } } : {}),
    ...(filter.from || filter.to
      ? {
          createdAt: {
            ...(filter.from ? { gte: dayStart(filter.from) } : {}),
            ...(filter.to ? { lt: nextDay(filter.to) } : {}),
          },
        }
      : {}),
    ...(filter.q
      ? {
          OR: [
            { id: { contains: filter.q } },
            { buyer: { path: ["email"], string_contains: filter.q } },
            { buyer: { path: ["email"], string_contains: filter.q.toLowerCase() } },
          ],
        }
      : {}),
  };
  const db = await getDb();
  const [total, rows, agents] = await Promise.all([
    db.order.count({ where }),
    db.order.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (filter.page - 1) * ADMIN_ORDERS_PAGE,
      take: ADMIN_ORDERS_PAGE,
      include: {
        checkout: { select: { agentProfile: true } },
        requests: { where: { status: "pending" }, select: { type: true } },
      },
    }),
    db.checkoutSession.findMany({
      where: { storeId: store.id, agentProfile: { not: null }, order: { isNot: null } },
      distinct: ["agentProfile"],
      select: { agentProfile: true },
      take: 100,
    }),
  ]);
  const orders: AdminOrderRow[] = rows.map((o) => ({
    id: o.id,
    createdAt: o.createdAt,
    status: o.status,
    currency: o.currency,
    totalMinor: totalOf(o.totals),
    buyerEmail: (o.buyer as { email?: string } | null)?.email ?? null,
    buyerName: buyerNameOf(o.buyer),
    rail: o.handlerId,
    agent: o.checkout.agentProfile,
    principalId: o.principalId,
    waiting: (o.requests[0]?.type as AdminOrderRow["waiting"] | undefined) ?? null,
  }));
  return {
    store,
    filter,
    orders,
    total,
    pages: Math.max(1, Math.ceil(total / ADMIN_ORDERS_PAGE)),
    agents: agents.map((a) => a.agentProfile!).sort(),
  };
};

export type TimelineEntry = {
  at: Date;
  kind: "event" | "payment" | "fulfillment" | "adjustment" | "webhook";
  title: string;
  /** Money moved by this entry, minor units of the order's currency (the page formats it). */
  amountMinor?: number;
  detail?: string;
};

/**
 * One order of the store with its timeline (oldest first), its webhook deliveries and what may still be refunded.
 * @throws AppError store_not_found, not_found
 */
export const storeOrderDetail = async (account: AccountSummary, slug: string, orderId: string) => {
  const { store, role } = await storeForAccount(account, slug, "staff");
  const db = await getDb();
  const order = await db.order.findFirst({
    where: { id: orderId, storeId: store.id },
    include: { ...ORDER_INCLUDE, checkout: { select: { agentProfile: true } } },
  });
  if (!order) throw new AppError("not_found", `No order "${orderId}" in this store`, { path: "$.order_id" });
  const [events, attempts, cardPayment, cryptoPayments, deliveries] = await Promise.all([
    db.orderEvent.findMany({ where: { orderId: order.id }, orderBy: { sequence: "asc" } }),
    db.paymentAttempt.findMany({ where: { checkoutId: order.checkoutId }, orderBy: { createdAt: "asc" } }),
    db.cardPayment.findUnique({ where: { checkoutId: order.checkoutId } }),
    db.cryptoPayment.findMany({ where: { checkoutId: order.checkoutId }, orderBy: { createdAt: "asc" } }),
    listDeliveries(store.id, { orderId: order.id, limit: 200 }),
  ]);
  const timeline: TimelineEntry[] = [
    ...events.map((e) => ({
      at: e.createdAt,
      kind: "event" as const,
      title: e.kind,
      detail: `#${e.sequence}`,
    })),
    ...attempts.map((a) => ({
      at: a.createdAt,
      kind: "payment" as const,
      title: `${a.rail} payment ${a.state}`,
      amountMinor: a.amount,
      detail: [
        a.cardBrand ? `${a.cardBrand} •••• ${a.cardLast4 ?? "????"}` : null,
        a.providerRef,
        a.refundRef ? `refund ${a.refundRef}` : null,
      ]
        .filter(Boolean)
        .join(" · "),
    })),
    ...(cardPayment && attempts.length === 0
      ? [
          {
            at: cardPayment.createdAt,
            kind: "payment" as const,
            title: `svc.card payment ${cardPayment.status}`,
            detail: [cardPayment.paymentIntentId, `attempt ${cardPayment.attempt}`]
              .filter(Boolean)
              .join(" · "),
          },
        ]
      : []),
    ...cryptoPayments.map((c) => ({
      at: c.preparedAt,
      kind: "payment" as const,
      title: c.settledDigest ? "svc.crypto transaction settled" : "svc.crypto transaction prepared",
      detail: [c.settledDigest ?? c.preparedDigest, `from ${c.buyerAddress}`].join(" · "),
    })),
    ...(order.fulfillmentEvents ?? []).map((f) => ({
      at: f.occurredAt,
      kind: "fulfillment" as const,
      title: `Fulfilment: ${f.type}`,
      detail: [f.carrier, f.trackingNumber, f.trackingUrl, f.description].filter(Boolean).join(" · "),
    })),
    ...(order.adjustments ?? []).map((a) => ({
      at: a.occurredAt,
      kind: "adjustment" as const,
      title: `${a.type === "refund" ? "Refund" : "Cancellation"} ${a.status}`,
      amountMinor: a.refundMinor,
      detail: [a.description, a.refundRef, a.failure].filter(Boolean).join(" · "),
    })),
    ...deliveries.flatMap((d: DeliveryLogEntry) =>
      d.attempts.map((a) => ({
        at: new Date(a.at),
        kind: "webhook" as const,
        title: `Webhook #${d.sequence} to ${d.target}: ${a.status ?? a.error ?? "no answer"}`,
        detail: `${a.target_url} · ${a.latency_ms} ms`,
      })),
    ),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
  const refundable =
    order.paymentRef && order.status !== "refunded"
      ? Math.max(0, paidMinor(order) - refundedMinor(order.adjustments ?? []))
      : 0;
  const buyerEmail = buyerEmailOf(order.buyer);
  // the local capture (no SMTP server configured) keeps the message itself: the merchant can read what was sent
  const [capturedConfirmation] = buyerEmail
    ? await listCapturedMail(1, { to: [buyerEmail], subjectContains: order.id })
    : [];
  return {
    store,
    role,
    order,
    buyerEmail,
    confirmation: { state: order.confirmationMail, captured: capturedConfirmation ?? null },
    agent: order.checkout.agentProfile,
    totalMinor: totalOf(order.totals),
    refundable,
    refundPending: (order.adjustments ?? []).some((a) => a.status === "pending"),
    timeline,
    deliveries,
  };
};

export const FulfilSchema = z.object({
  carrier: z.string().trim().min(1, "Name the carrier").max(100, "At most 100 characters"),
  trackingNumber: z.string().trim().min(1, "Enter the tracking number").max(100, "At most 100 characters"),
  trackingUrl: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^https:\/\/\S+$/, "Enter an https URL, or leave it blank")
      .max(2000)
      .optional(),
  ),
});

const invalid = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return new AppError("invalid_request", issue.message, { path: `$.${issue.path.join(".")}` });
};

/**
 * Ships every remaining unit with a carrier and tracking number (staff may).
 * @throws AppError store_not_found, not_found, invalid_request, conflict
 */
export const fulfilOrderAsMerchant = async (
  account: AccountSummary,
  slug: string,
  orderId: string,
  raw: unknown,
): Promise<OrderRecord> => {
  const { store } = await storeForAccount(account, slug, "staff");
  const parsed = FulfilSchema.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error);
  return recordFulfillmentEvent(store.slug, orderId, { type: "shipped", ...parsed.data });
};

export const ReasonSchema = z.object({
  reason: z.preprocess(blankToUndefined, z.string().trim().max(500, "At most 500 characters").optional()),
});

/**
 * Cancels an unshipped order and sends the money back (owners only).
 * @throws AppError store_not_found, owner_required, not_found, invalid_request, conflict, rail errors
 */
export const cancelOrderAsMerchant = async (
  account: AccountSummary,
  slug: string,
  orderId: string,
  raw: unknown,
): Promise<OrderRecord> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const parsed = ReasonSchema.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error);
  return cancelOrder(store.slug, orderId, parsed.data);
};

/**
 * Refunds part (`amountMinor`) or all (no amount) of a paid order (owners only). The amount was converted from the
 * major units the merchant typed by the caller; refund-order.ts reserves it as a pending refund first and refuses
 * more than is left.
 * @throws AppError store_not_found, owner_required, not_found, invalid_request, conflict, rail errors
 */
export const refundOrderAsMerchant = async (
  account: AccountSummary,
  slug: string,
  orderId: string,
  input: { amountMinor?: number; reason?: string },
): Promise<OrderRecord> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const parsed = ReasonSchema.safeParse({ reason: input.reason });
  if (!parsed.success) throw invalid(parsed.error);
  return refundOrder(store.slug, orderId, { amount: input.amountMinor, reason: parsed.data.reason });
};

/**
 * Approves or declines an agent's request that waits for the store (owners only: it moves money). The request
 * must belong to the order the page shows. A decline needs the reason the agent passes on.
 * @throws AppError store_not_found, owner_required, not_found, invalid_request, conflict, rail errors
 */
export const decideOrderRequestAsMerchant = async (
  account: AccountSummary,
  slug: string,
  orderId: string,
  requestId: string,
  decision: RequestDecision,
): Promise<OrderRecord> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const db = await getDb();
  const request = await db.orderRequest.findFirst({
    where: { id: requestId, orderId, order: { storeId: store.id } },
    select: { id: true },
  });
  if (!request) throw new AppError("not_found", "This request is not on this order", { path: "$.request" });
  return decideOrderRequest(store, request.id, decision, `account:${account.id}`);
};
