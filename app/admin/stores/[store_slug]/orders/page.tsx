import type { Metadata } from "next";
import Link from "next/link";

import {
  agentHost,
  orderNumber,
  OrderStatusBadge,
  railWord,
  RequestBadge,
  statusWord,
} from "@/components/admin/order-status";
import { loadStorePage } from "@/components/admin/store-page";
import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { formatMoney } from "@/components/ui/format";
import { Input } from "@/components/ui/input";
import { LocalTime } from "@/components/ui/local-time";
import { NativeSelect } from "@/components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { toAppError } from "@/lib/core/errors";
import { listStoreOrders, NOT_CANCELED, OrderFilterSchema, RAILS } from "@/lib/orders/admin-orders";
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
  // the order number people read ("#Xk3m9QaT") is the start of the id: searching for it finds the order
  const search = { ...query, q: query.q?.trim().replace(/^#/, "") ?? "" };
  const root = `/admin/stores/${encodeURIComponent(store_slug)}`;
  // a bad filter is shown beside its field and the list falls back to no filter
  const { result, shownError } = await loadStorePage(`${root}/orders`, async (account) => {
    try {
      return { result: await listStoreOrders(account, store_slug, search), shownError: null };
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
  const parsedOk = OrderFilterSchema.safeParse(search).success;
  const locale = await viewerLocale(store.country);
  const href = (id: string) => `${root}/orders/${encodeURIComponent(id)}`;
  return (
    <PageShell title="Orders" description={`${total} order${total === 1 ? "" : "s"} in ${store.name}`}>
      <form method="get" className="mb-6 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4" role="search">
        <Field id="q" label="Search" hint="Order number, ID or buyer email" error={errorOf("q")}>
          {(c) => <Input {...c} name="q" type="search" defaultValue={query.q} />}
        </Field>
        <Field id="status" label="Status" error={errorOf("status")}>
          {(c) => (
            <NativeSelect {...c} name="status" defaultValue={query.status}>
              <option value="">Any status</option>
              <option value={NOT_CANCELED}>Any but canceled</option>
              {ORDER_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusWord(s)}
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
                  {railWord(r)}
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
        <>
          {/* a phone gets one stacked card per order; a wider screen the table (one of the two is display:none) */}
          <ul className="grid gap-3 md:hidden" aria-label="Orders">
            {orders.map((o) => (
              <li key={o.id} className="bg-card relative grid gap-1 rounded-lg border p-4 text-sm">
                <div className="flex items-center justify-between gap-2">
                  <Link href={href(o.id)} className="font-semibold no-underline after:absolute after:inset-0">
                    <span className="sr-only">Order </span>
                    {orderNumber(o.id)}
                  </Link>
                  <span className="font-semibold whitespace-nowrap">
                    {formatMoney(o.totalMinor, o.currency, locale)}
                  </span>
                </div>
                <span className="break-words">{o.buyerName ?? o.buyerEmail ?? "No buyer details"}</span>
                <div className="text-muted-foreground flex flex-wrap items-center gap-2">
                  <OrderStatusBadge status={o.status} />
                  <RequestBadge waiting={o.waiting} />
                  <LocalTime at={o.createdAt} />
                  <span>· {railWord(o.rail)}</span>
                </div>
              </li>
            ))}
          </ul>
          <div className="hidden md:block">
            <Table aria-label="Orders">
              <TableHeader>
                <TableRow>
                  <TableHead scope="col">Order</TableHead>
                  <TableHead scope="col">Placed</TableHead>
                  <TableHead scope="col">Customer</TableHead>
                  <TableHead scope="col">Status</TableHead>
                  <TableHead scope="col">Paid with</TableHead>
                  <TableHead scope="col">Agent</TableHead>
                  <TableHead scope="col" className="text-right">
                    Total
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {orders.map((o) => (
                  <TableRow key={o.id} className="hover:bg-muted/50 relative">
                    <TableCell className="font-medium whitespace-nowrap">
                      {/* the link covers the whole row, so a click anywhere on it opens the order */}
                      <Link href={href(o.id)} className="no-underline after:absolute after:inset-0">
                        <span className="sr-only">Order </span>
                        {orderNumber(o.id)}
                      </Link>
                    </TableCell>
                    <TableCell className="whitespace-nowrap">
                      <LocalTime at={o.createdAt} />
                    </TableCell>
                    <TableCell className="max-w-64">
                      <span className="block truncate">{o.buyerName ?? o.buyerEmail ?? "—"}</span>
                      {o.buyerName && o.buyerEmail ? (
                        <span className="text-muted-foreground block truncate text-xs">{o.buyerEmail}</span>
                      ) : null}
                    </TableCell>
                    <TableCell>
                      <span className="flex flex-wrap gap-1">
                        <OrderStatusBadge status={o.status} />
                        <RequestBadge waiting={o.waiting} />
                      </span>
                    </TableCell>
                    <TableCell>{railWord(o.rail)}</TableCell>
                    <TableCell className="max-w-48 truncate" title={o.agent ?? undefined}>
                      {o.agentName ?? agentHost(o.agent)}
                    </TableCell>
                    <TableCell className="text-right whitespace-nowrap">
                      {formatMoney(o.totalMinor, o.currency, locale)}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        </>
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
