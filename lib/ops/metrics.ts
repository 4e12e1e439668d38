import "server-only";

import { timingSafeEqual } from "node:crypto";

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

import { RECONCILE_GRACE_MS } from "@/lib/checkout/completion/reconcile-payments";
import { getDb } from "@/lib/config/db";
import { logger } from "@/lib/core/log";
import { CheckoutStatus } from "@/lib/generated/prisma/enums";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";
import { lastJobRuns } from "@/lib/webhooks/periodic-jobs";

// Prometheus metrics (`GET /metrics`, text exposition format). Two kinds, chosen by where the truth lives
// (docs/decisions.md, "Metrics"):
//   - what only this process sees is counted in memory, per instance (Prometheus sums instances): HTTP requests
//     by route kind, route pattern, method and status, their latency, and when each sweep of this process last
//     ran;
//   - business state is read from the database at scrape time, so every instance reports the same, complete
//     truth whichever instance (or webhook, or sweep) did the work, and nothing is lost on restart: checkout
//     sessions by store and status (their sum is every checkout ever created), orders by store and rail, the
//     webhook backlog by store, and the age of the oldest item each sweep has not dealt with yet (sweep lag).
//     Every instance reports the same values: aggregate across instances with max(), not sum(). One series per
//     store and status or rail: a deployment with very many stores drops the store label in its scrape config.
// The state is kept on globalThis: Next loads this module once per route bundle, and the prelude of every route
// must count into the one registry /metrics reads.

type Metrics = {
  registry: Registry;
  httpRequests: Counter<"kind" | "route" | "method" | "status">;
  httpDuration: Histogram<"kind" | "route" | "method">;
  checkouts: Gauge<"store" | "status">;
  orders: Gauge<"store" | "rail">;
  webhookPending: Gauge<"store">;
  webhookDue: Gauge<"store">;
  oldestOverdue: Gauge<"sweep">;
  sweepLastRun: Gauge<"job">;
  sweepLastOk: Gauge<"job">;
  databaseUp: Gauge;
};

const KEY = Symbol.for("agent-commerce-service.metrics");
type Holder = { [KEY]?: Metrics };

const create = (): Metrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const on = { registers: [registry] };
  return {
    registry,
    httpRequests: new Counter({
      name: "acs_http_requests_total",
      help: "HTTP requests answered by a route, by route kind, route pattern, method and status",
      labelNames: ["kind", "route", "method", "status"],
      ...on,
    }),
    httpDuration: new Histogram({
      name: "acs_http_request_duration_seconds",
      help: "Time to answer an HTTP request in a route (prelude included), by route kind, route pattern, method",
      labelNames: ["kind", "route", "method"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ...on,
    }),
    checkouts: new Gauge({
      name: "acs_checkout_sessions",
      help: "Checkout sessions in the database by store and status (the sum: every checkout created); read at scrape",
      labelNames: ["store", "status"],
      ...on,
    }),
    orders: new Gauge({
      name: "acs_orders",
      help: "Orders in the database by store and the payment rail that paid them (svc.card, svc.crypto); read at scrape",
      labelNames: ["store", "rail"],
      ...on,
    }),
    webhookPending: new Gauge({
      name: "acs_webhook_deliveries_pending",
      help: "Order-webhook deliveries not yet delivered nor given up (the backlog), by store; read at scrape",
      labelNames: ["store"],
      ...on,
    }),
    webhookDue: new Gauge({
      name: "acs_webhook_deliveries_due",
      help: "Pending order-webhook deliveries whose next attempt is due now, by store; read at scrape",
      labelNames: ["store"],
      ...on,
    }),
    oldestOverdue: new Gauge({
      name: "acs_sweep_oldest_overdue_seconds",
      help: "Age of the oldest item a background job should already have handled (0: none); read at scrape",
      labelNames: ["sweep"],
      ...on,
    }),
    sweepLastRun: new Gauge({
      name: "acs_sweep_last_run_timestamp_seconds",
      help: "When each periodic job of this process last finished (unix seconds)",
      labelNames: ["job"],
      ...on,
    }),
    sweepLastOk: new Gauge({
      name: "acs_sweep_last_run_success",
      help: "1 when the last run of the periodic job in this process succeeded, 0 when it failed",
      labelNames: ["job"],
      ...on,
    }),
    databaseUp: new Gauge({
      name: "acs_metrics_database_up",
      help: "1 when this scrape could read the database-derived metrics, 0 when it could not (they are then absent)",
      ...on,
    }),
  };
};

const metrics = (): Metrics => ((globalThis as Holder)[KEY] ??= create());

/** Counts one answered request (called by the request observer of the route prelude). */
export const recordHttpRequest = (
  labels: { kind: string; route: string; method: string; status: number },
  seconds: number,
): void => {
  const m = metrics();
  m.httpRequests.inc({ ...labels, status: String(labels.status) });
  m.httpDuration.observe({ kind: labels.kind, route: labels.route, method: labels.method }, seconds);
};

type Count = { store: string; key: string | null; n: number };
type Oldest = { oldest: Date | null };

const ageSeconds = (oldest: Date | null, now: Date): number =>
  oldest ? Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) : 0;

/** Reads the business state from the database into the gauges (one round of small aggregate queries). */
const readDatabase = async (m: Metrics, now: Date): Promise<void> => {
  const db = await getDb();
  const [checkouts, orders, deliveries, overdueCards, pendingRefunds] = await Promise.all([
    db.$queryRawUnsafe<Count[]>(
      `SELECT s.slug AS store, c.status::text AS key, count(*)::int AS n
         FROM checkout_sessions c JOIN stores s ON s.id = c.store_id GROUP BY s.slug, c.status`,
    ),
    db.$queryRawUnsafe<Count[]>(
      `SELECT s.slug AS store, o.handler_id AS key, count(*)::int AS n
         FROM orders o JOIN stores s ON s.id = o.store_id GROUP BY s.slug, o.handler_id`,
    ),
    db.$queryRawUnsafe<{ store: string; pending: number; due: number; oldest: Date | null }[]>(
      `SELECT s.slug AS store, count(*)::int AS pending,
              (count(*) FILTER (WHERE d.next_attempt_at <= $1))::int AS due,
              min(d.next_attempt_at) FILTER (WHERE d.next_attempt_at <= $1) AS oldest
         FROM webhook_deliveries d JOIN stores s ON s.id = d.store_id
        WHERE d.state = 'pending' GROUP BY s.slug`,
      now,
    ),
    // the reconciliation sweep's own selection (reconcile-payments.ts), past its grace period
    db.$queryRawUnsafe<Oldest[]>(
      `SELECT min(cp.updated_at) AS oldest
         FROM card_payments cp JOIN checkout_sessions cs ON cs.id = cp.checkout_id
        WHERE cp.updated_at < $1
          AND cs.status NOT IN ('completed', 'canceled')
          AND ((cp.payment_intent_id IS NOT NULL AND cp.status NOT IN ('declined', 'refunded'))
            OR (cp.payment_intent_id IS NULL AND cp.status = 'pending' AND cs.status = 'complete_in_progress'))`,
      new Date(now.getTime() - RECONCILE_GRACE_MS),
    ),
    db.$queryRawUnsafe<Oldest[]>(
      `SELECT min(occurred_at) AS oldest FROM order_adjustments WHERE status = 'pending'`,
    ),
  ]);
  // a store with checkouts has every status and rail as a series, 0 when none (a dashboard's lines exist before
  // its first sale); a store without any checkout has none
  m.checkouts.reset();
  m.orders.reset();
  for (const store of new Set(checkouts.map((row) => row.store))) {
    for (const status of Object.values(CheckoutStatus)) m.checkouts.set({ store, status }, 0);
    for (const rail of Object.values(RAIL_HANDLER_IDS)) m.orders.set({ store, rail }, 0);
  }
  for (const row of checkouts) m.checkouts.set({ store: row.store, status: row.key ?? "unknown" }, row.n);
  for (const row of orders) m.orders.set({ store: row.store, rail: row.key ?? "none" }, row.n);
  m.webhookPending.reset();
  m.webhookDue.reset();
  let oldestDue: Date | null = null;
  for (const row of deliveries) {
    m.webhookPending.set({ store: row.store }, row.pending);
    m.webhookDue.set({ store: row.store }, row.due);
    if (row.oldest && (!oldestDue || new Date(row.oldest) < new Date(oldestDue))) oldestDue = row.oldest;
  }
  m.oldestOverdue.set({ sweep: "webhook_delivery" }, ageSeconds(oldestDue, now));
  m.oldestOverdue.set({ sweep: "card_reconciliation" }, ageSeconds(overdueCards[0]?.oldest ?? null, now));
  m.oldestOverdue.set({ sweep: "refund_settlement" }, ageSeconds(pendingRefunds[0]?.oldest ?? null, now));
};

/**
 * Whether reading the metrics needs METRICS_TOKEN: in production, or as soon as any store takes real money. Read
 * from process.env at each scrape (Next sets NODE_ENV=production for the server it runs).
 */
const tokenRequired = async (): Promise<boolean> => {
  if (process.env.NODE_ENV === "production" || process.env.METRICS_TOKEN) return true;
  const db = await getDb();
  return (await db.store.findFirst({ where: { mode: "live" }, select: { id: true } })) !== null;
};

const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export type MetricsAnswer =
  | { ok: true; contentType: string; body: string }
  | { ok: false; reason: "token_required" | "token_not_configured" };

/**
 * A scrape: the metrics in Prometheus' text format when the caller may read them (METRICS_TOKEN as a bearer
 * where one is required, above). The database part is skipped, and reported as acs_metrics_database_up 0,
 * when the database does not answer: the process metrics stay readable in an outage.
 */
export const scrapeMetrics = async (authorization: string | null): Promise<MetricsAnswer> => {
  const expected = process.env.METRICS_TOKEN;
  const needsToken = await tokenRequired().catch(() => true);
  if (needsToken) {
    if (!expected) return { ok: false, reason: "token_not_configured" };
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!given || !sameSecret(given, expected)) return { ok: false, reason: "token_required" };
  }
  const m = metrics();
  const now = new Date();
  try {
    await readDatabase(m, now);
    m.databaseUp.set(1);
  } catch (error) {
    logger().error(`metrics: the database-derived metrics could not be read: ${(error as Error).message}`);
    m.databaseUp.set(0);
    for (const gauge of [m.checkouts, m.orders, m.webhookPending, m.webhookDue, m.oldestOverdue])
      gauge.reset();
  }
  m.sweepLastRun.reset();
  m.sweepLastOk.reset();
  for (const [job, run] of lastJobRuns()) {
    m.sweepLastRun.set({ job }, Math.round(run.finishedAt / 1000));
    m.sweepLastOk.set({ job }, run.ok ? 1 : 0);
  }
  return { ok: true, contentType: m.registry.contentType, body: await m.registry.metrics() };
};
