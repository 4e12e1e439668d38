import "server-only";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { listCapturedMail } from "@/lib/mail/send-mail";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";
import type { OrderEventKind } from "@/lib/webhooks/append-order-event";
import { listDeliveries } from "@/lib/webhooks/list-deliveries";

import { buyerEmailOf } from "./confirmation-mail";
import { cryptoReceiptsOf, type CryptoLegReceipt } from "./crypto-receipts";
import { principalNames } from "./dashboard-figures";
import { paidMinor, refundedMinor } from "./settle-refund";
import { ORDER_INCLUDE, type OrderFulfillmentSnapshot } from "./to-wire";

// The order as the merchant ships it (the admin's order page): who bought it, where it goes and how, each line with
// its picture, the money as the checkout priced it (subtotal, shipping, tax, discount, total), what was paid on
// which rail and what went back, the fulfilment state, and a timeline in words. One read of the order with its
// lines, shipments and adjustments, then one query per other table (events, attempts, product pictures, crypto
// receipt, webhook log, captured mail), never one per line. Amounts stay in minor units: the page formats them.

export type BreakdownRow = { type: string; label: string; amountMinor: number };

export type OrderPayment =
  | { rail: "card"; brand: string | null; last4: string | null }
  | { rail: "crypto"; legs: CryptoLegReceipt[]; digest: string }
  | { rail: "none" };

export type FulfilmentState = "unfulfilled" | "partial" | "fulfilled" | "canceled";

export type ViewTimelineEntry = {
  at: Date;
  title: string;
  /** Money this step moved, minor units of the order's currency. */
  amountMinor?: number;
  detail?: string;
  tone: "neutral" | "success" | "danger";
};

const TOTAL_LABELS: Record<string, string> = {
  subtotal: "Subtotal",
  discount: "Discount",
  fulfillment: "Shipping",
  tax: "Tax",
  total: "Total",
};
// the order a receipt reads in, whatever order the totals were stored in
const TOTAL_ORDER = ["subtotal", "discount", "fulfillment", "tax"];

const EVENT_TITLES: Record<OrderEventKind, string> = {
  "order.placed": "Order placed",
  "order.paid": "Payment captured",
  "order.canceled": "Order canceled",
  "order.refunded": "Refund paid back",
  "order.fulfilled": "Shipment recorded",
  "order.delivered": "Delivered",
  "order.cancellation_requested": "Cancellation requested",
  "order.refund_requested": "Refund requested",
  "order.request_declined": "Request declined",
  "order.updated": "Order updated",
};

/** An order event's type in the words the merchant's pages use ("order.paid" → "Payment captured"). */
export const orderEventTitle = (kind: string): string => EVENT_TITLES[kind as OrderEventKind] ?? kind;

const ATTEMPT_TITLES: Record<string, string> = {
  declined: "Payment declined",
  canceled: "Payment attempt canceled",
  requires_action: "Payment waiting for the buyer (3-D Secure)",
};

const SHIPMENT_TITLES: Record<string, string> = {
  in_transit: "In transit",
  delivered: "Delivered",
  failed_attempt: "Delivery attempt failed",
};

const units = (n: number) => `${n} item${n === 1 ? "" : "s"}`;

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);

const personName = (o: unknown): string | null => {
  const r = (o ?? {}) as Record<string, unknown>;
  const name = [text(r.first_name), text(r.last_name)].filter(Boolean).join(" ");
  return name || null;
};

type MediaItem = { type?: string; url?: string; alt_text?: string };

/**
 * One order of the store for its page, read for an account with a role in the store (staff or above).
 * @throws AppError store_not_found, not_found
 */
export const merchantOrderView = async (account: AccountSummary, slug: string, orderId: string) => {
  const { store, role } = await storeForAccount(account, slug, "staff");
  const db = await getDb();
  const order = await db.order.findFirst({
    where: { id: orderId, storeId: store.id },
    include: { ...ORDER_INCLUDE, checkout: { select: { agentProfile: true } } },
  });
  if (!order) throw new AppError("not_found", `No order "${orderId}" in this store`, { path: "$.order_id" });
  const buyerEmail = buyerEmailOf(order.buyer);
  const [events, attempts, variants, receipts, deliveries, captured] = await Promise.all([
    db.orderEvent.findMany({
      where: { orderId: order.id },
      orderBy: { sequence: "asc" },
      select: { sequence: true, kind: true, createdAt: true },
    }),
    db.paymentAttempt.findMany({ where: { checkoutId: order.checkoutId }, orderBy: { createdAt: "asc" } }),
    db.variant.findMany({
      where: { id: { in: order.lineItems.map((l) => l.variantId) } },
      select: { id: true, product: { select: { title: true, media: true } } },
    }),
    cryptoReceiptsOf(db, [order]),
    listDeliveries(store.id, { orderId: order.id, limit: 200 }),
    // the local capture (no SMTP server configured) keeps the message itself: the merchant can read what was sent
    buyerEmail ? listCapturedMail(1, { to: [buyerEmail], subjectContains: order.id }) : Promise.resolve([]),
  ]);

  const lines = order.lineItems.map((l) => {
    const media = (variants.find((v) => v.id === l.variantId)?.product.media ?? []) as MediaItem[];
    const image = Array.isArray(media)
      ? media.find((m) => m.url && (!m.type || m.type === "image"))
      : undefined;
    const open = l.quantity - l.quantityCanceled;
    return {
      id: l.id,
      title: l.title,
      quantity: l.quantity,
      fulfilled: l.quantityFulfilled,
      canceled: l.quantityCanceled,
      toShip: Math.max(0, open - l.quantityFulfilled),
      unitMinor: l.priceMinor,
      lineMinor: l.priceMinor * l.quantity,
      imageUrl: image?.url ?? null,
      imageAlt: image?.alt_text ?? l.title,
    };
  });

  const totals = (order.totals ?? []) as { type: string; amount: number; display_text?: string }[];
  const rank = (type: string) =>
    TOTAL_ORDER.includes(type) ? TOTAL_ORDER.indexOf(type) : TOTAL_ORDER.length;
  const breakdown: BreakdownRow[] = totals
    .filter((t) => t.type !== "total")
    .sort((a, b) => rank(a.type) - rank(b.type))
    .map((t) => ({
      type: t.type,
      label:
        t.type === "tax" ? (t.display_text ?? "Tax") : (TOTAL_LABELS[t.type] ?? t.display_text ?? t.type),
      amountMinor: t.amount,
    }));
  const totalMinor = totals.find((t) => t.type === "total")?.amount ?? 0;

  const snapshot = (order.fulfillment ?? { destination: null, option: null }) as OrderFulfillmentSnapshot;
  const d = snapshot.destination;
  const shipTo = d
    ? {
        name: personName(d) ?? personName(order.buyer),
        lines: [
          text(d.street_address),
          text(d.extended_address),
          [text(d.address_locality), [text(d.address_region), text(d.postal_code)].filter(Boolean).join(" ")]
            .filter(Boolean)
            .join(", ") || null,
          text(d.address_country),
        ].filter((x): x is string => x !== null),
        phone: text(d.phone_number) ?? text((order.buyer as Record<string, unknown> | null)?.phone_number),
      }
    : null;

  // the attempt that paid is the one the order names; an older order without the reference, its last success
  const won =
    attempts.find((a) => a.providerRef !== null && a.providerRef === order.paymentRef) ??
    attempts.filter((a) => ["succeeded", "refunding", "refunded"].includes(a.state)).at(-1);
  const receipt = receipts.get(order.id);
  const payment: OrderPayment =
    order.handlerId === RAIL_HANDLER_IDS.card
      ? { rail: "card", brand: won?.cardBrand ?? null, last4: won?.cardLast4 ?? null }
      : order.handlerId === RAIL_HANDLER_IDS.crypto && receipt
        ? {
            rail: "crypto",
            legs: receipt.crypto_payment.legs,
            digest: receipt.crypto_payment.transaction_digest,
          }
        : { rail: "none" };
  const adjustments = order.adjustments ?? [];
  const paid = paidMinor(order);
  const refunded = adjustments.filter((a) => a.status === "completed").reduce((s, a) => s + a.refundMinor, 0);
  const refundPendingMinor = adjustments
    .filter((a) => a.status === "pending")
    .reduce((s, a) => s + a.refundMinor, 0);
  const refundable =
    order.paymentRef && order.status !== "refunded" ? Math.max(0, paid - refundedMinor(adjustments)) : 0;

  const open = lines.reduce((s, l) => s + l.quantity - l.canceled, 0);
  const shipped = lines.reduce((s, l) => s + l.fulfilled, 0);
  const fulfilment: FulfilmentState =
    open === 0 ? "canceled" : shipped === 0 ? "unfulfilled" : shipped >= open ? "fulfilled" : "partial";

  // The timeline: the order's own events in their sequence, then what the other tables add, sorted by time (ties
  // keep the order they were listed in, so "Order placed" always precedes "Payment captured" of the same instant)
  const steps: (ViewTimelineEntry & { seq: number })[] = [];
  const push = (entry: ViewTimelineEntry) => steps.push({ ...entry, seq: steps.length });
  const eventKinds = new Set(events.map((e) => e.kind));
  for (const e of events) {
    // shipments and refunds have their own, richer entries below (order.refunded follows every refund paid back,
    // partial ones too); the names above still label the webhook attempts
    // requests, too, have their own entries (with the reason), also when the store's policy granted one at once
    if (
      [
        "order.fulfilled",
        "order.updated",
        "order.delivered",
        "order.refunded",
        "order.cancellation_requested",
        "order.refund_requested",
        "order.request_declined",
      ].includes(e.kind)
    )
      continue;
    push({
      at: e.createdAt,
      title: orderEventTitle(e.kind),
      tone: e.kind === "order.canceled" ? "danger" : "neutral",
      ...(e.kind === "order.paid" ? { amountMinor: paid } : {}),
    });
  }
  for (const a of attempts) {
    const title = ATTEMPT_TITLES[a.state];
    if (title) push({ at: a.createdAt, title, amountMinor: a.amount, tone: "danger" });
  }
  if (!eventKinds.has("order.paid") && order.paymentRef && won) {
    push({ at: won.createdAt, title: "Payment captured", amountMinor: paid, tone: "neutral" });
  }
  for (const f of order.fulfillmentEvents ?? []) {
    const count = ((f.lineItems ?? []) as { quantity?: number }[]).reduce((s, l) => s + (l.quantity ?? 0), 0);
    push({
      at: f.occurredAt,
      title:
        f.type === "shipped"
          ? count > 0
            ? `${units(count)} shipped`
            : "Items shipped"
          : (SHIPMENT_TITLES[f.type] ?? f.type),
      detail: [f.carrier, f.trackingNumber, f.description].filter(Boolean).join(" · ") || undefined,
      tone: f.type === "failed_attempt" ? "danger" : "success",
    });
  }
  for (const a of adjustments) {
    const what = a.type === "cancellation" ? "Cancellation refund" : "Refund";
    push({
      at: a.occurredAt,
      title:
        a.status === "completed"
          ? `${what} paid back`
          : a.status === "failed"
            ? `${what} failed`
            : `${what} on its way back`,
      amountMinor: a.refundMinor,
      detail: [a.description, a.failure].filter(Boolean).join(" · ") || undefined,
      tone: a.status === "failed" ? "danger" : "neutral",
    });
  }
  for (const r of order.requests ?? []) {
    const what = r.type === "cancellation" ? "Cancellation" : "Refund";
    push({
      at: r.createdAt,
      title: `${what} requested by the agent`,
      detail: r.reason,
      ...(r.type === "refund" ? { amountMinor: r.amountMinor } : {}),
      tone: "neutral",
    });
    if (r.status === "declined" && r.decidedAt) {
      push({
        at: r.decidedAt,
        title: `${what} request declined`,
        detail: r.declineReason ?? undefined,
        tone: "danger",
      });
    }
  }
  const kindOf = new Map(events.map((e) => [e.sequence, e.kind]));
  // deliveries come newest first; a worker's batch shares one start time, so list them by event, the store's
  // webhook before the platform's, and each delivery's attempts oldest first: ties then keep this order
  const byEvent = [...deliveries].sort(
    (a, b) => a.sequence - b.sequence || Number(a.target !== "store") - Number(b.target !== "store"),
  );
  for (const delivery of byEvent) {
    const kind = kindOf.get(delivery.sequence);
    const about = kind ? orderEventTitle(kind) : "Order";
    const to = delivery.target === "store" ? "your webhook" : "the agent's platform";
    for (const attempt of [...delivery.attempts].reverse()) {
      const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
      push({
        at: new Date(attempt.at),
        title: `“${about}” ${ok ? "sent to" : "not accepted by"} ${to}`,
        detail: `${attempt.status ? `HTTP ${attempt.status}` : (attempt.error ?? "no answer")} · ${attempt.target_url}`,
        tone: ok ? "neutral" : "danger",
      });
    }
  }
  const timeline: ViewTimelineEntry[] = steps
    .sort((a, b) => a.at.getTime() - b.at.getTime() || a.seq - b.seq)
    .map(({ seq: _seq, ...entry }) => entry);

  const unshipped = lines.some((l) => l.toShip > 0);
  const live = order.status !== "canceled" && order.status !== "refunded";
  return {
    store,
    role,
    order: {
      id: order.id,
      status: order.status,
      currency: order.currency,
      createdAt: order.createdAt,
      serviceCouponMinor: order.serviceCouponMinor,
    },
    /** The agent's request waiting for the store (at most one: order-requests.ts). */
    waitingRequest:
      (order.requests ?? [])
        .filter((r) => r.status === "pending")
        .map((r) => ({
          id: r.id,
          type: r.type,
          amountMinor: r.amountMinor,
          reason: r.reason,
          createdAt: r.createdAt,
        }))[0] ?? null,
    buyer: { name: personName(order.buyer), email: buyerEmail },
    shipTo,
    shippingOption: snapshot.option?.title ?? null,
    lines,
    breakdown,
    totalMinor,
    payment,
    money: { paidMinor: paid, refundedMinor: refunded, refundPendingMinor, refundableMinor: refundable },
    fulfilment: { state: fulfilment, shippedUnits: shipped, units: open },
    agent: order.checkout.agentProfile,
    agentName: (await principalNames(db, [order.principalId])).get(order.principalId) ?? null,
    confirmation: { state: order.confirmationMail, captured: captured[0] ?? null },
    timeline,
    can: {
      fulfil: unshipped && ["paid", "placed", "fulfilled"].includes(order.status),
      refund: role !== "staff" && refundable > 0 && refundPendingMinor === 0,
      cancel: role !== "staff" && live && lines.every((l) => l.fulfilled === 0),
    },
  };
};

export type MerchantOrderView = Awaited<ReturnType<typeof merchantOrderView>>;
