import "server-only";

import { formatMajor } from "@/lib/catalog/admin/major-units";
import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";
import { logger } from "@/lib/core/log";
import { sendMail, type Mail } from "@/lib/mail/send-mail";

import { orderPermalink } from "./to-wire";

// The buyer's order confirmation (UCP checkout.md: the business sends one after completion). placeOrder marks the
// order `confirmation_mail = pending` in the order's own transaction when the buyer gave an email (an outbox, like
// the order events), so however the order was placed (the completion, a retried completion, the sweep, a late
// provider callback) there is exactly one pending mail. The webhook worker's step sends it: a claim
// (`confirmation_mail_locked_until`) keeps two workers off the same mail; a captured mail is written in the same
// transaction that marks it sent (exactly once); over SMTP a crash between the server's acceptance and the mark
// can send it twice, never zero times.

export const CONFIRMATION_CLAIM_MS = 60_000;

/** The buyer's email of an order's buyer object, when it has a usable one. */
export const buyerEmailOf = (buyer: unknown): string | null => {
  const email = (buyer as { email?: unknown } | null)?.email;
  return typeof email === "string" && /^[^\s@]+@[^\s@]+$/.test(email.trim()) ? email.trim() : null;
};

/** "12.50 USD": the amount in major units (integer arithmetic) and its currency. */
const major = (minor: number, currency: string): string => `${formatMajor(minor, currency)} ${currency}`;

/** The message for one order (plain text: a sentence, the lines, the total and the links). */
export const confirmationMailOf = (
  order: {
    id: string;
    currency: string;
    totals: unknown;
    lineItems: { title: string; quantity: number; priceMinor: number }[];
  },
  store: { name: string; slug: string },
  to: string,
  baseUrl = getBaseUrl(),
): Mail => {
  const total = (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount;
  const lines = order.lineItems.map(
    (l) => `  ${l.quantity} × ${l.title} — ${major(l.priceMinor * l.quantity, order.currency)}`,
  );
  return {
    to,
    subject: `${store.name}: your order ${order.id} is confirmed`,
    text: [
      `Thank you for your order at ${store.name}.`,
      "",
      `Order ${order.id}`,
      ...lines,
      ...(total !== undefined ? [`Total: ${major(total, order.currency)}`] : []),
      "",
      `Your order: ${orderPermalink(store, baseUrl, order.id)}`,
      `All your orders: ${baseUrl}/account/orders`,
    ].join("\n"),
  };
};

/**
 * Sends the pending confirmation mails (of one store when `storeId` is given); returns the ids of the orders whose
 * mail went out. A failed send stays pending and is retried once its claim lapses.
 */
export const sendDueConfirmationMails = async (
  now = new Date(),
  { storeId, limit = 20 }: { storeId?: string; limit?: number } = {},
): Promise<string[]> => {
  const db = await getDb();
  const due = await db.order.findMany({
    where: {
      confirmationMail: "pending",
      OR: [{ confirmationMailLockedUntil: null }, { confirmationMailLockedUntil: { lt: now } }],
      ...(storeId ? { storeId } : {}),
    },
    select: { id: true, confirmationMailLockedUntil: true },
    orderBy: { createdAt: "asc" },
    take: limit,
  });
  const sent: string[] = [];
  for (const candidate of due) {
    // the claim: only the worker whose update matched the lock it read sends this mail
    const { count } = await db.order.updateMany({
      where: {
        id: candidate.id,
        confirmationMail: "pending",
        confirmationMailLockedUntil: candidate.confirmationMailLockedUntil,
      },
      data: { confirmationMailLockedUntil: new Date(now.getTime() + CONFIRMATION_CLAIM_MS) },
    });
    if (count !== 1) continue;
    const order = await db.order.findUniqueOrThrow({
      where: { id: candidate.id },
      include: { lineItems: { orderBy: { position: "asc" } }, store: true },
    });
    const to = buyerEmailOf(order.buyer);
    if (!to) {
      await db.order.update({ where: { id: order.id }, data: { confirmationMail: null } });
      continue;
    }
    const mail = confirmationMailOf(order, order.store, to);
    try {
      await sendMail(mail, {
        // the local capture is written with the mark: one transaction, one message
        capture: async (write) =>
          db.$transaction(async (tx) => {
            await write(tx);
            await tx.order.update({ where: { id: order.id }, data: { confirmationMail: "sent" } });
          }),
      });
      await db.order.updateMany({
        where: { id: order.id, confirmationMail: "pending" },
        data: { confirmationMail: "sent" },
      });
      sent.push(order.id);
    } catch (thrown) {
      logger().warn(
        { orderId: order.id, code: toAppError(thrown).code },
        `order confirmation mail of ${order.id} not sent (retried later)`,
      );
    }
  }
  return sent;
};
