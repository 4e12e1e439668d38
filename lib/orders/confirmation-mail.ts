import "server-only";

import { formatMajor } from "@/lib/catalog/admin/major-units";
import { getBaseUrl } from "@/lib/config/env";
import { execute, query, sql, statementOf } from "@/lib/config/sql";
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

type ClaimedOrder = {
  id: string;
  buyer: unknown;
  currency: string;
  totals: unknown;
  lineItems: { title: string; quantity: number; priceMinor: number }[];
  storeName: string;
  storeSlug: string;
};

/**
 * The claim, with what the message needs: only the worker whose update matched the lock it read sends this mail.
 */
const claim = async (id: string, lockedUntil: Date | null, now: Date): Promise<ClaimedOrder | null> => {
  const [order] = await query<ClaimedOrder>(sql`
    UPDATE orders o SET confirmation_mail_locked_until = ${new Date(now.getTime() + CONFIRMATION_CLAIM_MS)},
                        updated_at = ${new Date()}
    FROM stores s
    WHERE o.id = ${id} AND o.confirmation_mail = 'pending'
      AND o.confirmation_mail_locked_until IS NOT DISTINCT FROM ${lockedUntil}::timestamp(3)
      AND s.id = o.store_id
    RETURNING o.id, o.buyer, o.currency, o.totals, s.name AS "storeName", s.slug AS "storeSlug",
      COALESCE((SELECT json_agg(json_build_object('title', l.title, 'quantity', l.quantity,
                                                  'priceMinor', l.price_minor) ORDER BY l.position)
                FROM order_line_items l WHERE l.order_id = o.id), '[]'::json) AS "lineItems"`);
  return order ?? null;
};

const markOrder = (id: string, mark: "sent" | null) =>
  execute(sql`
    UPDATE orders SET confirmation_mail = ${mark}, updated_at = ${new Date()}
    WHERE id = ${id} AND confirmation_mail = 'pending'`);

/**
 * Sends the pending confirmation mails (of one store when `storeId` is given); returns the ids of the orders whose
 * mail went out. A failed send stays pending and is retried once its claim lapses.
 */
export const sendDueConfirmationMails = async (
  now = new Date(),
  { storeId, limit = 20 }: { storeId?: string; limit?: number } = {},
): Promise<string[]> => {
  const due = await query<{ id: string; lockedUntil: Date | null }>(
    statementOf(
      `SELECT id, confirmation_mail_locked_until AS "lockedUntil" FROM orders
       WHERE confirmation_mail = 'pending'
         AND (confirmation_mail_locked_until IS NULL OR confirmation_mail_locked_until < $1)${
           storeId === undefined ? "" : " AND store_id = $3"
         }
       ORDER BY created_at
       LIMIT $2`,
      storeId === undefined ? [now, limit] : [now, limit, storeId],
    ),
  );
  const sent: string[] = [];
  for (const candidate of due) {
    const order = await claim(candidate.id, candidate.lockedUntil, now);
    if (!order) continue;
    const to = buyerEmailOf(order.buyer);
    if (!to) {
      await markOrder(order.id, null);
      continue;
    }
    const mail = confirmationMailOf(order, { name: order.storeName, slug: order.storeSlug }, to);
    try {
      const outcome = await sendMail(mail, {
        // the local capture is written with the mark: one statement, one message
        capture: ({ id, to, subject, text }) =>
          execute(sql`
            WITH captured AS (
              INSERT INTO captured_mail (id, "to", subject, text, created_at)
              VALUES (${id}, ${to}, ${subject}, ${text}, ${new Date()}))
            UPDATE orders SET confirmation_mail = 'sent', updated_at = ${new Date()} WHERE id = ${order.id}`).then(
            () => {},
          ),
      });
      if (outcome.via === "smtp") await markOrder(order.id, "sent");
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
