import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";

import { ConversionChart, SalesBarChart, SalesPerDayChart } from "@/components/admin/dashboard-charts";
import { changeOf, rateChangeOf, type FigureChange } from "@/components/admin/figure-change";
import { loadStorePage } from "@/components/admin/store-page";
import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field } from "@/components/ui/field";
import { formatCount, formatDay, formatDayRange, formatMoney } from "@/components/ui/format";
import { Input } from "@/components/ui/input";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { toAppError } from "@/lib/core/errors";
import { NOT_CANCELED } from "@/lib/orders/admin-orders";
import { dashboardFigures, defaultDashboardRange } from "@/lib/orders/dashboard-figures";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard — Merchant admin", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const RAIL_LABELS: Record<string, string> = { "svc.card": "Card", "svc.crypto": "Crypto" };

const CHANGE_TONE: Record<FigureChange["direction"], string> = {
  up: "text-success-soft-foreground",
  down: "text-warning-soft-foreground",
  same: "text-muted-foreground",
  new: "text-muted-foreground",
};

function Figure({
  label,
  value,
  change,
  before,
}: {
  label: string;
  value: string;
  change: FigureChange;
  before: string;
}) {
  return (
    <div className="min-w-0 rounded-lg border p-3">
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="text-xl font-semibold break-words">{value}</dd>
      <dd className="text-xs">
        <span className={cn("font-medium", CHANGE_TONE[change.direction])}>{change.text}</span>{" "}
        <span className="text-muted-foreground">(before: {before})</span>
      </dd>
    </div>
  );
}

function FigureTable({ label, columns, rows }: { label: string; columns: string[]; rows: ReactNode[][] }) {
  return (
    <Table aria-label={label}>
      <TableHeader>
        <TableRow>
          {columns.map((c, i) => (
            <TableHead key={c} scope="col" className={i > 0 ? "text-right" : undefined}>
              {c}
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.length === 0 ? (
          <TableRow>
            <TableCell colSpan={columns.length}>Nothing in this range.</TableCell>
          </TableRow>
        ) : (
          rows.map((r, i) => (
            <TableRow key={i}>
              {r.map((cell, j) => (
                <TableCell key={j} className={j > 0 ? "text-right whitespace-nowrap" : "break-words"}>
                  {cell}
                </TableCell>
              ))}
            </TableRow>
          ))
        )}
      </TableBody>
    </Table>
  );
}

export default async function DashboardPage({ params, searchParams }: Props) {
  const { store_slug } = await params;
  const sp = await searchParams;
  const fallback = defaultDashboardRange();
  const asked = {
    from: typeof sp.from === "string" && sp.from ? sp.from : fallback.from,
    to: typeof sp.to === "string" && sp.to ? sp.to : fallback.to,
  };
  const root = `/admin/stores/${encodeURIComponent(store_slug)}`;
  // a bad range is shown beside its field and the default range is shown instead
  const { figures, shown } = await loadStorePage(`${root}/dashboard`, async (account) => {
    try {
      return { figures: await dashboardFigures(account, store_slug, asked), shown: null };
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.code !== "invalid_request") throw thrown;
      return {
        figures: await dashboardFigures(account, store_slug, fallback),
        shown: { field: error.path?.replace(/^\$\./, "") ?? "from", message: error.message },
      };
    }
  });
  const locale = await viewerLocale(figures.country);
  const money = (minor: number) => formatMoney(minor, figures.currency, locale);
  const count = (n: number) => formatCount(n, locale);
  const day = (iso: string) => formatDay(iso, locale);
  const days = (from: string, to: string) => formatDayRange(from, to, locale);
  const percentOf = (rate: number) => `${Math.round(rate * 1000) / 10}%`;
  const percent = percentOf(figures.conversion.rate);
  const activeDays = figures.perDay.filter((d) => d.orders > 0);
  const { totals, previous } = figures;
  // each row opens the orders behind it: the orders list's own filters (from/to are the same UTC days), canceled
  // orders left out as the figures leave them out
  const ordersHref = (filter: Record<string, string>) =>
    `${root}/orders?${new URLSearchParams({ status: NOT_CANCELED, from: figures.from, to: figures.to, ...filter })}`;
  const opens = (href: string, text: string, label: string) => (
    <Link href={href} className="underline underline-offset-4" aria-label={label}>
      {text}
    </Link>
  );
  return (
    <PageShell
      title="Dashboard"
      description={`${days(figures.from, figures.to)} (UTC days), in ${figures.currency}, against ${days(previous.from, previous.to)}`}
    >
      <form method="get" className="mb-6 flex flex-wrap items-end gap-3" aria-label="Range">
        <Field id="from" label="From" error={shown?.field === "from" ? shown.message : undefined}>
          {(c) => <Input {...c} name="from" type="date" defaultValue={asked.from} />}
        </Field>
        <Field id="to" label="To" error={shown?.field === "to" ? shown.message : undefined}>
          {(c) => <Input {...c} name="to" type="date" defaultValue={asked.to} />}
        </Field>
        <Button type="submit">Show</Button>
      </form>
      <dl className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-5" aria-label="Totals">
        <Figure
          label="Sales"
          value={money(totals.salesMinor)}
          change={changeOf(totals.salesMinor, previous.totals.salesMinor, locale)}
          before={money(previous.totals.salesMinor)}
        />
        <Figure
          label="Orders"
          value={count(totals.orders)}
          change={changeOf(totals.orders, previous.totals.orders, locale)}
          before={count(previous.totals.orders)}
        />
        <Figure
          label="Average order"
          value={money(totals.averageOrderMinor)}
          change={changeOf(totals.averageOrderMinor, previous.totals.averageOrderMinor, locale)}
          before={money(previous.totals.averageOrderMinor)}
        />
        <Figure
          label="Refunded"
          value={money(totals.refundedMinor)}
          change={changeOf(totals.refundedMinor, previous.totals.refundedMinor, locale)}
          before={money(previous.totals.refundedMinor)}
        />
        <Figure
          label="Checkout → order"
          value={percent}
          change={rateChangeOf(figures.conversion.rate, previous.conversion.rate, locale)}
          before={percentOf(previous.conversion.rate)}
        />
      </dl>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Sales per day</CardTitle>
            <CardDescription>
              {money(figures.totals.salesMinor)} from {figures.totals.orders}{" "}
              {figures.totals.orders === 1 ? "order" : "orders"} (canceled orders left out); the table lists
              the days with sales.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <SalesPerDayChart data={figures.perDay} currency={figures.currency} locale={locale} />
            <FigureTable
              label="Sales per day"
              columns={["Day", "Orders", "Sales"]}
              rows={activeDays.map((d) => [
                opens(ordersHref({ from: d.day, to: d.day }), day(d.day), `Orders of ${day(d.day)}`),
                count(d.orders),
                money(d.salesMinor),
              ])}
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>By rail</CardTitle>
            <CardDescription>Sales by the payment rail that charged.</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <SalesBarChart
              data={figures.byRail.map((r) => ({ ...r, label: RAIL_LABELS[r.rail] ?? r.rail }))}
              category="label"
              currency={figures.currency}
              locale={locale}
            />
            <FigureTable
              label="Sales by rail"
              columns={["Rail", "Orders", "Sales"]}
              rows={figures.byRail.map((r) => {
                const label = RAIL_LABELS[r.rail];
                return [
                  label ? opens(ordersHref({ rail: r.rail }), label, `${label} orders`) : r.rail,
                  count(r.orders),
                  money(r.salesMinor),
                ];
              })}
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>By agent or platform</CardTitle>
            <CardDescription>
              Sales by the agent that placed them, named after its platform key or OAuth client.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <SalesBarChart
              data={figures.byAgent.map((a) => ({ label: a.name, salesMinor: a.salesMinor }))}
              category="label"
              currency={figures.currency}
              locale={locale}
            />
            <FigureTable
              label="Sales by agent"
              columns={["Agent", "Orders", "Sales"]}
              rows={figures.byAgent.map((a) => [
                a.agent ? opens(ordersHref({ agent: a.agent }), a.name, `Orders by ${a.name}`) : a.name,
                count(a.orders),
                money(a.salesMinor),
              ])}
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Conversion</CardTitle>
            <CardDescription>
              {figures.conversion.converted} of {figures.conversion.checkouts} checkouts created in the range
              became orders ({percent}).
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <ConversionChart
              checkouts={figures.conversion.checkouts}
              converted={figures.conversion.converted}
            />
            <FigureTable
              label="Checkout to order"
              columns={["Step", "Count"]}
              rows={[
                ["Checkouts created", count(figures.conversion.checkouts)],
                ["Orders placed from them", count(figures.conversion.converted)],
              ]}
            />
          </CardContent>
        </Card>
      </div>
    </PageShell>
  );
}
