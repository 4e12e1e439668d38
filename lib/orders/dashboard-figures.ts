import "server-only";

import { z } from "zod";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { Prisma } from "@/lib/generated/prisma/client";

// The store dashboard's figures, all from one set of SQL aggregations over a range of UTC days: sales per day, by
// rail, by agent (the UCP-Agent profile of the checkout), and the conversion from checkouts created to orders
// placed from them. Sales are the orders' totals (minor units, the store's currency) of orders placed in the
// range and not canceled; refunds are counted beside them, never netted silently.

export const MAX_DASHBOARD_DAYS = 366;

const DaySchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date such as 2026-05-31");

export const DashboardRangeSchema = z
  .object({ from: DaySchema, to: DaySchema })
  .refine((r) => !Number.isNaN(Date.parse(`${r.from}T00:00:00Z`)), {
    message: "Not a calendar date",
    path: ["from"],
  })
  .refine((r) => !Number.isNaN(Date.parse(`${r.to}T00:00:00Z`)), {
    message: "Not a calendar date",
    path: ["to"],
  })
  .refine((r) => r.from <= r.to, { message: "The start must not be after the end", path: ["from"] })
  .refine(
    (r) =>
      (Date.parse(`${r.to}T00:00:00Z`) - Date.parse(`${r.from}T00:00:00Z`)) / 86_400_000 < MAX_DASHBOARD_DAYS,
    { message: `At most ${MAX_DASHBOARD_DAYS} days`, path: ["to"] },
  );

export type DashboardFigures = {
  currency: string;
  from: string;
  to: string;
  /** Every day of the range, empty days included. */
  perDay: { day: string; orders: number; salesMinor: number }[];
  byRail: { rail: string; orders: number; salesMinor: number }[];
  byAgent: { agent: string; orders: number; salesMinor: number }[];
  totals: { orders: number; salesMinor: number; refundedMinor: number };
  conversion: { checkouts: number; converted: number; rate: number };
};

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The default range: the last 30 days up to today (UTC). */
export const defaultDashboardRange = (now = new Date()) => ({
  from: isoDay(new Date(now.getTime() - 29 * 86_400_000)),
  to: isoDay(now),
});

type Group = { key: string | null; orders: bigint | number; sales: bigint | number | null };
const n = (v: bigint | number | null | undefined) => Number(v ?? 0);

/**
 * The figures of a store over [from, to] (inclusive UTC days).
 * @throws AppError store_not_found, invalid_request (the range)
 */
export const dashboardFigures = async (
  account: AccountSummary,
  slug: string,
  raw: unknown,
): Promise<DashboardFigures> => {
  const { store } = await storeForAccount(account, slug, "staff");
  const parsed = DashboardRangeSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${issue.path.join(".")}` });
  }
  const { from, to } = parsed.data;
  const start = new Date(`${from}T00:00:00.000Z`);
  const end = new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000);
  const db = await getDb();
  // the order's total is its totals entry of type "total" (signed minor units)
  const sales = Prisma.sql`(SELECT SUM((t->>'amount')::bigint) FROM jsonb_array_elements(o.totals) t WHERE t->>'type' = 'total')`;
  const placed = Prisma.sql`o.store_id = ${store.id} AND o.created_at >= ${start} AND o.created_at < ${end} AND o.status <> 'canceled'`;
  const [perDay, byRail, byAgent, refunds, conversion] = await Promise.all([
    db.$queryRaw<Group[]>`
      SELECT to_char(o.created_at, 'YYYY-MM-DD') AS key, COUNT(*) AS orders, SUM(${sales}) AS sales
      FROM orders o WHERE ${placed} GROUP BY 1`,
    db.$queryRaw<Group[]>`
      SELECT o.handler_id AS key, COUNT(*) AS orders, SUM(${sales}) AS sales
      FROM orders o WHERE ${placed} GROUP BY 1 ORDER BY 3 DESC NULLS LAST`,
    db.$queryRaw<Group[]>`
      SELECT c.agent_profile AS key, COUNT(*) AS orders, SUM(${sales}) AS sales
      FROM orders o JOIN checkout_sessions c ON c.id = o.checkout_id
      WHERE ${placed} GROUP BY 1 ORDER BY 3 DESC NULLS LAST`,
    db.$queryRaw<{ refunded: bigint | number | null }[]>`
      SELECT SUM(a.refund_minor) AS refunded FROM order_adjustments a JOIN orders o ON o.id = a.order_id
      WHERE o.store_id = ${store.id} AND a.status = 'completed'
        AND a.occurred_at >= ${start} AND a.occurred_at < ${end}`,
    db.$queryRaw<{ checkouts: bigint | number; converted: bigint | number }[]>`
      SELECT COUNT(*) AS checkouts, COUNT(o.id) AS converted
      FROM checkout_sessions c LEFT JOIN orders o ON o.checkout_id = c.id
      WHERE c.store_id = ${store.id} AND c.created_at >= ${start} AND c.created_at < ${end}`,
  ]);
  const days = new Map(perDay.map((r) => [r.key, r]));
  const series: DashboardFigures["perDay"] = [];
  for (let t = start.getTime(); t < end.getTime(); t += 86_400_000) {
    const day = isoDay(new Date(t));
    const row = days.get(day);
    series.push({ day, orders: n(row?.orders), salesMinor: n(row?.sales) });
  }
  const checkouts = n(conversion[0]?.checkouts);
  const converted = n(conversion[0]?.converted);
  return {
    currency: store.currency,
    from,
    to,
    perDay: series,
    byRail: byRail.map((r) => ({ rail: r.key ?? "unpaid", orders: n(r.orders), salesMinor: n(r.sales) })),
    byAgent: byAgent.map((r) => ({
      agent: r.key ?? "no agent profile",
      orders: n(r.orders),
      salesMinor: n(r.sales),
    })),
    totals: {
      orders: series.reduce((s, d) => s + d.orders, 0),
      salesMinor: series.reduce((s, d) => s + d.salesMinor, 0),
      refundedMinor: n(refunds[0]?.refunded),
    },
    conversion: { checkouts, converted, rate: checkouts === 0 ? 0 : converted / checkouts },
  };
};
