import "server-only";

import { z } from "zod";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getDb, type Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { Prisma } from "@/lib/generated/prisma/client";

// The store dashboard's figures, all from one set of SQL aggregations over a range of UTC days: sales per day, by
// rail, by agent (the UCP-Agent profile of the checkout, named after the platform key, OAuth client or buyer-granted
// agent that placed the orders), and the conversion from checkouts created to orders placed from them. Sales are
// the orders' totals (minor units, the store's currency) of orders placed in the range and not canceled; refunds are
// counted beside them, never netted silently. The same totals over the period of the same length just before the
// range are the comparison each figure is shown against.

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

export type PeriodTotals = {
  orders: number;
  salesMinor: number;
  refundedMinor: number;
  /** Sales over orders, rounded to the nearest minor unit (0 without orders). */
  averageOrderMinor: number;
};

export type DashboardFigures = {
  currency: string;
  /** The store's country (the locale its figures are read in when the viewer's is unknown). */
  country: string;
  from: string;
  to: string;
  /** Every day of the range, empty days included. */
  perDay: { day: string; orders: number; salesMinor: number }[];
  byRail: { rail: string; orders: number; salesMinor: number }[];
  /**
   * By the agent profile of the checkouts (null: none sent); `name`: the names of the platform keys, OAuth clients or
   * buyer-granted agents that placed them (most sales first), else the profile's host.
   */
  byAgent: { agent: string | null; name: string; orders: number; salesMinor: number }[];
  totals: PeriodTotals;
  conversion: { checkouts: number; converted: number; rate: number };
  /** The same figures over the days just before `from`, as many as the range has. */
  previous: {
    from: string;
    to: string;
    totals: PeriodTotals;
    conversion: { checkouts: number; converted: number; rate: number };
  };
};

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The default range: the last 30 days up to today (UTC). */
export const defaultDashboardRange = (now = new Date()) => ({
  from: isoDay(new Date(now.getTime() - 29 * 86_400_000)),
  to: isoDay(now),
});

type Group = { key: string | null; orders: bigint | number; sales: bigint | number | null };
const n = (v: bigint | number | null | undefined) => Number(v ?? 0);
const DAY_MS = 86_400_000;

// the order's total is its totals entry of type "total" (signed minor units)
const SALES = Prisma.sql`(SELECT SUM((t->>'amount')::bigint) FROM jsonb_array_elements(o.totals) t WHERE t->>'type' = 'total')`;
const placedIn = (storeId: string, start: Date, end: Date) =>
  Prisma.sql`o.store_id = ${storeId} AND o.created_at >= ${start} AND o.created_at < ${end} AND o.status <> 'canceled'`;

/** Orders, sales, refunds and conversion of a store over [start, end). */
const periodFigures = async (db: Db, storeId: string, start: Date, end: Date) => {
  const [placed, refunds, conversion] = await Promise.all([
    db.$queryRaw<{ orders: bigint | number; sales: bigint | number | null }[]>`
      SELECT COUNT(*) AS orders, SUM(${SALES}) AS sales FROM orders o WHERE ${placedIn(storeId, start, end)}`,
    db.$queryRaw<{ refunded: bigint | number | null }[]>`
      SELECT SUM(a.refund_minor) AS refunded FROM order_adjustments a JOIN orders o ON o.id = a.order_id
      WHERE o.store_id = ${storeId} AND a.status = 'completed'
        AND a.occurred_at >= ${start} AND a.occurred_at < ${end}`,
    db.$queryRaw<{ checkouts: bigint | number; converted: bigint | number }[]>`
      SELECT COUNT(*) AS checkouts, COUNT(o.id) AS converted
      FROM checkout_sessions c LEFT JOIN orders o ON o.checkout_id = c.id
      WHERE c.store_id = ${storeId} AND c.created_at >= ${start} AND c.created_at < ${end}`,
  ]);
  const orders = n(placed[0]?.orders);
  const salesMinor = n(placed[0]?.sales);
  const checkouts = n(conversion[0]?.checkouts);
  const converted = n(conversion[0]?.converted);
  return {
    totals: {
      orders,
      salesMinor,
      refundedMinor: n(refunds[0]?.refunded),
      averageOrderMinor: orders === 0 ? 0 : Math.round(salesMinor / orders),
    },
    conversion: { checkouts, converted, rate: checkouts === 0 ? 0 : converted / checkouts },
  };
};

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

/**
 * The names of the principals that placed orders (lib/credentials/principal.ts ids): a platform key's name, a
 * client-credentials OAuth client's name, the name a buyer's agent gave at consent, a signing agent's profile host.
 */
export const principalNames = async (db: Db, ids: readonly string[]): Promise<Map<string, string>> => {
  const keyIds: string[] = [];
  const clientIds: string[] = [];
  const consents: { buyerId: string; clientId: string }[] = [];
  const names = new Map<string, string>();
  for (const id of ids) {
    const buyerAgent = /^buyer:([^:]+):agent:(.+)$/.exec(id);
    if (id.startsWith("key:")) keyIds.push(id.slice(4));
    else if (id.startsWith("oauth-client:")) clientIds.push(id.slice(13));
    else if (buyerAgent) consents.push({ buyerId: buyerAgent[1]!, clientId: buyerAgent[2]! });
    else if (id.startsWith("agent:")) {
      const host = hostOf(id.slice(6));
      if (host) names.set(id, host);
    }
  }
  const [keys, clients, granted] = await Promise.all([
    keyIds.length > 0
      ? db.platformApiKey.findMany({ where: { id: { in: keyIds } }, select: { id: true, name: true } })
      : [],
    clientIds.length > 0
      ? db.oAuthClient.findMany({
          where: { clientId: { in: clientIds } },
          select: { clientId: true, name: true },
        })
      : [],
    consents.length > 0
      ? db.buyerConsent.findMany({
          where: { OR: consents },
          select: { buyerId: true, clientId: true, clientName: true },
        })
      : [],
  ]);
  for (const k of keys) names.set(`key:${k.id}`, k.name);
  for (const c of clients) names.set(`oauth-client:${c.clientId}`, c.name);
  for (const c of granted) names.set(`buyer:${c.buyerId}:agent:${c.clientId}`, c.clientName);
  return names;
};

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
  const placed = placedIn(store.id, start, end);
  const length = end.getTime() - start.getTime();
  const previousStart = new Date(start.getTime() - length);
  const [perDay, byRail, byAgent, current, previous] = await Promise.all([
    db.$queryRaw<Group[]>`
      SELECT to_char(o.created_at, 'YYYY-MM-DD') AS key, COUNT(*) AS orders, SUM(${SALES}) AS sales
      FROM orders o WHERE ${placed} GROUP BY 1`,
    db.$queryRaw<Group[]>`
      SELECT o.handler_id AS key, COUNT(*) AS orders, SUM(${SALES}) AS sales
      FROM orders o WHERE ${placed} GROUP BY 1 ORDER BY 3 DESC NULLS LAST`,
    db.$queryRaw<(Group & { principal: string })[]>`
      SELECT c.agent_profile AS key, o.principal_id AS principal, COUNT(*) AS orders, SUM(${SALES}) AS sales
      FROM orders o JOIN checkout_sessions c ON c.id = o.checkout_id
      WHERE ${placed} GROUP BY 1, 2 ORDER BY 4 DESC NULLS LAST, 2`,
    periodFigures(db, store.id, start, end),
    periodFigures(db, store.id, previousStart, start),
  ]);
  const days = new Map(perDay.map((r) => [r.key, r]));
  const series: DashboardFigures["perDay"] = [];
  for (let t = start.getTime(); t < end.getTime(); t += 86_400_000) {
    const day = isoDay(new Date(t));
    const row = days.get(day);
    series.push({ day, orders: n(row?.orders), salesMinor: n(row?.sales) });
  }
  const names = await principalNames(db, [...new Set(byAgent.map((r) => r.principal))]);
  // one row per agent profile (the orders list filters by it), named after every principal that used it
  const agents = new Map<string | null, DashboardFigures["byAgent"][number] & { names: string[] }>();
  for (const r of byAgent) {
    const row = agents.get(r.key) ?? { agent: r.key, name: "", names: [], orders: 0, salesMinor: 0 };
    row.orders += n(r.orders);
    row.salesMinor += n(r.sales);
    const name = names.get(r.principal);
    if (name && !row.names.includes(name)) row.names.push(name);
    agents.set(r.key, row);
  }
  return {
    currency: store.currency,
    country: store.country,
    from,
    to,
    perDay: series,
    byRail: byRail.map((r) => ({ rail: r.key ?? "unpaid", orders: n(r.orders), salesMinor: n(r.sales) })),
    byAgent: [...agents.values()]
      .map(({ names: known, ...row }) => ({
        ...row,
        name: known.join(", ") || (row.agent ? (hostOf(row.agent) ?? row.agent) : "Agents without a profile"),
      }))
      .sort((a, b) => b.salesMinor - a.salesMinor || a.name.localeCompare(b.name)),
    totals: current.totals,
    conversion: current.conversion,
    previous: {
      from: isoDay(previousStart),
      to: isoDay(new Date(start.getTime() - DAY_MS)),
      ...previous,
    },
  };
};
