import type { Metadata } from "next";
import type { ReactNode } from "react";

import { ConversionChart, SalesBarChart, SalesPerDayChart } from "@/components/admin/dashboard-charts";
import { agentHost } from "@/components/admin/order-status";
import { loadStorePage } from "@/components/admin/store-page";
import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMoney } from "@/lib/bridge/money";
import { toAppError } from "@/lib/core/errors";
import { dashboardFigures, defaultDashboardRange } from "@/lib/orders/dashboard-figures";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard — Merchant admin", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

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
                <TableCell key={j} className={j > 0 ? "text-right whitespace-nowrap" : "break-all"}>
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
  const money = (minor: number) => formatMoney(minor, figures.currency);
  const percent = `${Math.round(figures.conversion.rate * 1000) / 10}%`;
  const activeDays = figures.perDay.filter((d) => d.orders > 0);
  return (
    <PageShell
      title="Dashboard"
      description={`${figures.from} to ${figures.to} (UTC days), in ${figures.currency}`}
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
      <dl className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-4" aria-label="Totals">
        {[
          ["Sales", money(figures.totals.salesMinor)],
          ["Orders", String(figures.totals.orders)],
          ["Refunded", money(figures.totals.refundedMinor)],
          ["Checkout → order", percent],
        ].map(([label, value]) => (
          <div key={label} className="rounded-lg border p-3">
            <dt className="text-muted-foreground text-xs">{label}</dt>
            <dd className="text-xl font-semibold">{value}</dd>
          </div>
        ))}
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
            <SalesPerDayChart data={figures.perDay} currency={figures.currency} />
            <FigureTable
              label="Sales per day"
              columns={["Day", "Orders", "Sales"]}
              rows={activeDays.map((d) => [d.day, d.orders, money(d.salesMinor)])}
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
              data={figures.byRail.map((r) => ({
                ...r,
                label: r.rail === "svc.card" ? "Card" : r.rail === "svc.crypto" ? "Crypto" : r.rail,
              }))}
              category="label"
              currency={figures.currency}
            />
            <FigureTable
              label="Sales by rail"
              columns={["Rail", "Orders", "Sales"]}
              rows={figures.byRail.map((r) => [r.rail, r.orders, money(r.salesMinor)])}
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>By agent or platform</CardTitle>
            <CardDescription>Sales by the agent profile that created the checkout.</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <SalesBarChart
              data={figures.byAgent.map((a) => ({
                ...a,
                label: agentHost(a.agent.startsWith("http") ? a.agent : null),
              }))}
              category="label"
              currency={figures.currency}
            />
            <FigureTable
              label="Sales by agent"
              columns={["Agent", "Orders", "Sales"]}
              rows={figures.byAgent.map((a) => [a.agent, a.orders, money(a.salesMinor)])}
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
                ["Checkouts created", figures.conversion.checkouts],
                ["Orders placed from them", figures.conversion.converted],
              ]}
            />
          </CardContent>
        </Card>
      </div>
    </PageShell>
  );
}
