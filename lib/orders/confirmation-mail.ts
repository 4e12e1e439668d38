import "server-only";

import { formatMajor } from "@/lib/catalog/admin/major-units";
import { getBaseUrl } from "@/lib/config/env";
import { execute, query, sql } from "@/lib/config/sql";
import { toAppError } from "@/lib/core/errors";
import { logger } from "@/lib/core/log";
import { SEND_BOUND_MS, sendMail, type Mail } from "@/lib/mail/send-mail";

import { orderPermalink } from "./to-wire";

// The buyer's order confirmation (UCP checkout.md: the business sends one after completion). placeOrder marks the
// order `confirmation_mail = pending` in the order's own transaction when the buyer gave an email (an outbox, like
// the order events), so however the order was placed (the completion, a retried completion, the sweep, a late
// provider callback) there is exactly one pending mail. The webhook worker's step sends it: a claim
// (`confirmation_mail_locked_until`) keeps two workers off the same mail; a captured mail is written in the same
// statement that marks it sent (exactly once; a claimed batch's captures in one statement); over SMTP a crash
// between the server's acceptance and the mark can send it twice, never zero times.

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
 * The claim of the due mails, oldest first, with what each message needs, in one statement: a mail is due while
 * it is pending and nobody's claim holds it. Two workers at once pick the same candidates, and the second's update
 * finds them claimed when it gets their rows (the condition is checked again on the row it waited for), so each
 * mail is claimed once.
 */
const claimDue = async (
  now: Date,
  lockedUntil: Date,
  { storeId, limit }: { storeId?: string; limit: number },
): Promise<ClaimedOrder[]> => {
  const orders = await query<ClaimedOrder & { createdAt: Date }>(sql`
    UPDATE orders o SET confirmation_mail_locked_until = ${lockedUntil}, updated_at = ${new Date()}
    FROM stores s
    WHERE o.id IN (SELECT id FROM orders
                   WHERE confirmation_mail = 'pending'
                     AND (confirmation_mail_locked_until IS NULL OR confirmation_mail_locked_until < ${now})
                     AND (${storeId ?? null}::text IS NULL OR store_id = ${storeId ?? null})
                   ORDER BY created_at
                   LIMIT ${limit})
      AND o.confirmation_mail = 'pending'
      AND (o.confirmation_mail_locked_until IS NULL OR o.confirmation_mail_locked_until < ${now})
      AND s.id = o.store_id
    RETURNING o.id, o.buyer, o.currency, o.totals, o.created_at AS "createdAt", s.name AS "storeName",
      s.slug AS "storeSlug",
      COALESCE((SELECT json_agg(json_build_object('title', l.title, 'quantity', l.quantity,
                                                  'priceMinor', l.price_minor) ORDER BY l.position)
                FROM order_line_items l WHERE l.order_id = o.id), '[]'::json) AS "lineItems"`);
  return orders.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
};

/** Gives back claims not used (the lease would not cover their sending): due again at once. */
const release = async (ids: string[], lockedUntil: Date): Promise<void> => {
  if (ids.length === 0) return;
  await execute(sql`
    UPDATE orders SET confirmation_mail_locked_until = NULL
    WHERE id = ANY(${ids}::text[]) AND confirmation_mail = 'pending'
      AND confirmation_mail_locked_until = ${lockedUntil}`);
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
  {
    storeId,
    limit = 20,
    lease = CONFIRMATION_CLAIM_MS,
    sendBoundMs = SEND_BOUND_MS,
  }: {
    storeId?: string;
    limit?: number;
    /** The claim's lease and how long one message may take (the defaults above; tests give their own). */
    lease?: number;
    sendBoundMs?: number;
  } = {},
): Promise<string[]> => {
  const lockedUntil = new Date(now.getTime() + lease);
  const claimedAt = performance.now();
  const claimed = await claimDue(now, lockedUntil, { storeId, limit });
  const sent: string[] = [];
  const captured: Captured[] = [];
  for (const [i, order] of claimed.entries()) {
    // sent one after another: a message starts only while the claim still covers its whole sending
    if (performance.now() - claimedAt + sendBoundMs >= lease) {
      await release(
        claimed.slice(i).map((o) => o.id),
        lockedUntil,
      );
      break;
    }
    const to = buyerEmailOf(order.buyer);
    if (!to) {
      await markOrder(order.id, null);
      continue;
    }
    const mail = confirmationMailOf(order, { name: order.storeName, slug: order.storeSlug }, to);
    try {
      const outcome = await sendMail(mail, {
        // the local capture is written with its mark, the claimed batch's together (below)
        capture: async (message) => {
          captured.push({ ...message, orderId: order.id });
        },
      });
      if (outcome.via === "smtp") {
        await markOrder(order.id, "sent");
        sent.push(order.id);
      }
    } catch (thrown) {
      logger().warn(
        { orderId: order.id, code: toAppError(thrown).code },
        `order confirmation mail of ${order.id} not sent (retried later)`,
      );
    }
  }
  if (captured.length === 0) return sent;
  try {
    await captureAll(captured);
  } catch (thrown) {
    logger().warn(
      { orderIds: captured.map((c) => c.orderId), code: toAppError(thrown).code },
      `${captured.length} order confirmation mails not captured (retried later)`,
    );
    return sent;
  }
  return [...sent, ...captured.map((c) => c.orderId)];
};

type Captured = { id: string; to: string; subject: string; text: string; orderId: string };

/**
 * The local captures of a claimed batch, each written with its order's mark, all in one statement (exactly once:
 * a capture is never written without its mark, nor a mark without its capture); the rows travel as one JSON
 * array.
 */
const captureAll = async (captured: readonly Captured[]): Promise<void> => {
  const now = new Date();
  await execute(sql`
    WITH m AS (
      SELECT * FROM jsonb_to_recordset(CAST(${JSON.stringify(captured)} AS jsonb))
        AS m(id text, "to" text, subject text, text text, "orderId" text)),
    captured AS (
      INSERT INTO captured_mail (id, "to", subject, text, created_at)
      SELECT id, "to", subject, text, ${now} FROM m)
    UPDATE orders SET confirmation_mail = 'sent', updated_at = ${now}
    WHERE id IN (SELECT "orderId" FROM m)`);
};
