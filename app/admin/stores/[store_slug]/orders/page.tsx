import type { Metadata } from "next";
import Link from "next/link";

import { agentHost, OrderStatusBadge } from "@/components/admin/order-status";
import { loadStorePage } from "@/components/admin/store-page";
import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMoney } from "@/lib/bridge/money";
import { toAppError } from "@/lib/core/errors";
import { listStoreOrders, OrderFilterSchema, RAILS } from "@/lib/orders/admin-orders";
import { ORDER_STATUSES } from "@/lib/orders/list-buyer-orders";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Orders — Merchant admin", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const FILTERS = ["status", "from", "to", "rail", "agent", "q"] as const;

export default async function OrdersPage({ params, searchParams }: Props) {
  const { store_slug } = await params;
  const raw = await searchParams;
  const query = Object.fromEntries(
    [...FILTERS, "page"].map((k) => [k, typeof raw[k] === "string" ? (raw[k] as string) : ""]),
  );
  const root = `/admin/stores/${encodeURIComponent(store_slug)}`;
  // a bad filter is shown beside its field and the list falls back to no filter
  const { result, shownError } = await loadStorePage(`${root}/orders`, async (account) => {
    try {
      return { result: await listStoreOrders(account, store_slug, query), shownError: null };
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.code !== "invalid_request") throw thrown;
      return {
        result: await listStoreOrders(account, store_slug, {}),
        shownError: { field: error.path?.replace(/^\$\./, "") ?? "q", message: error.message },
      };
    }
  });
  const { store, orders, total, pages, agents, filter } = result;
  const errorOf = (f: string) => (shownError?.field === f ? shownError.message : undefined);
  const pageHref = (page: number) => {
    const sp = new URLSearchParams();
    for (const k of FILTERS) if (query[k]) sp.set(k, query[k]!);
    sp.set("page", String(page));
    return `${root}/orders?${sp}`;
  };
  const parsedOk = OrderFilterSchema.safeParse(query).success;
  return (
    <PageShell title="Orders" description={`${total} order${total === 1 ? "" : "s"} in ${store.name}`}>
      <form method="get" className="mb-6 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" role="search">
        <Field id="q" label="Search" hint="Order id or buyer email" error={errorOf("q")}>
          {(c) => <Input {...c} name="q" type="search" defaultValue={query.q} />}
        </Field>
        <Field id="status" label="Status" error={errorOf("status")}>
          {(c) => (
            <NativeSelect {...c} name="status" defaultValue={query.status}>
              <option value="">Any status</option>
              {ORDER_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        <Field id="rail" label="Rail" error={errorOf("rail")}>
          {(c) => (
            <NativeSelect {...c} name="rail" defaultValue={query.rail}>
              <option value="">Any rail</option>
              {RAILS.map((r) => (
                <option key={r} value={r}>
                  {r === "svc.card" ? "Card" : "Crypto"}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        <Field id="agent" label="Agent or platform" error={errorOf("agent")}>
          {(c) => (
            <NativeSelect {...c} name="agent" defaultValue={query.agent}>
              <option value="">Any agent</option>
              {agents.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        <Field id="from" label="From" error={errorOf("from")}>
          {(c) => <Input {...c} name="from" type="date" defaultValue={query.from} />}
        </Field>
        <Field id="to" label="To" error={errorOf("to")}>
          {(c) => <Input {...c} name="to" type="date" defaultValue={query.to} />}
        </Field>
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <Button asChild variant="ghost">
            <Link href={`${root}/orders`}>Clear</Link>
          </Button>
        </div>
      </form>
      {orders.length === 0 ? (
        <EmptyState title="No orders match">
          {parsedOk && total === 0 && !FILTERS.some((k) => query[k])
            ? "Orders appear here as soon as an agent completes a checkout."
            : "Change or clear the filters to see more."}
        </EmptyState>
      ) : (
        <Table aria-label="Orders">
          <TableHeader>
            <TableRow>
              <TableHead scope="col">Order</TableHead>
              <TableHead scope="col">Placed</TableHead>
              <TableHead scope="col">Status</TableHead>
              <TableHead scope="col">Buyer</TableHead>
              <TableHead scope="col">Rail</TableHead>
              <TableHead scope="col">Agent</TableHead>
              <TableHead scope="col" className="text-right">
                Total
              </TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {orders.map((o) => (
              <TableRow key={o.id}>
                <TableCell className="font-mono text-xs">
                  <Link className="underline underline-offset-4" href={`${root}/orders/${o.id}`}>
                    {o.id}
                  </Link>
                </TableCell>
                <TableCell className="whitespace-nowrap">
                  <time dateTime={o.createdAt.toISOString()}>
                    {o.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC
                  </time>
                </TableCell>
                <TableCell>
                  <OrderStatusBadge status={o.status} />
                </TableCell>
                <TableCell className="min-w-48 break-all">{o.buyerEmail ?? "—"}</TableCell>
                <TableCell>
                  {o.rail === "svc.crypto" ? "Crypto" : o.rail === "svc.card" ? "Card" : "—"}
                </TableCell>
                <TableCell className="max-w-48 truncate" title={o.agent ?? undefined}>
                  {agentHost(o.agent)}
                </TableCell>
                <TableCell className="text-right whitespace-nowrap">
                  {formatMoney(o.totalMinor, o.currency)}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      {pages > 1 ? (
        <nav aria-label="Pages of orders" className="mt-4 flex items-center justify-between gap-2 text-sm">
          {filter.page > 1 ? <Link href={pageHref(filter.page - 1)}>← Newer</Link> : <span />}
          <span>
            Page {filter.page} of {pages}
          </span>
          {filter.page < pages ? <Link href={pageHref(filter.page + 1)}>Older →</Link> : <span />}
        </nav>
      ) : null}
    </PageShell>
  );
}
