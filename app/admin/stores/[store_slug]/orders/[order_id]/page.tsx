import type { Metadata } from "next";
import Link from "next/link";

import { CancelForm, FulfilForm, RefundForm } from "@/components/admin/order-forms";
import { agentHost, OrderStatusBadge } from "@/components/admin/order-status";
import { loadStorePage } from "@/components/admin/store-page";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMoney } from "@/lib/bridge/money";
import { storeOrderDetail } from "@/lib/orders/admin-orders";

import { cancelOrderAction, fulfilOrderAction, refundOrderAction } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Order — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string; order_id: string }> };

const when = (d: Date) => `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;

export default async function OrderPage({ params }: Props) {
  const { store_slug, order_id } = await params;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}`;
  const detail = await loadStorePage(`${root}/orders/${encodeURIComponent(order_id)}`, (account) =>
    storeOrderDetail(account, store_slug, order_id),
  );
  const { order, role, timeline, refundable, refundPending, confirmation, buyerEmail } = detail;
  const isOwner = role !== "staff";
  const unshipped = order.lineItems.some((l) => l.quantity - l.quantityCanceled > l.quantityFulfilled);
  const shippable =
    unshipped && (order.status === "paid" || order.status === "placed" || order.status === "fulfilled");
  const cancelable =
    order.status !== "canceled" &&
    order.status !== "refunded" &&
    order.lineItems.every((l) => l.quantityFulfilled === 0);
  const money = (minor: number) => formatMoney(minor, order.currency);
  return (
    <PageShell
      title={<span className="font-mono text-xl break-all sm:text-2xl">{order.id}</span>}
      description={
        <span className="flex flex-wrap items-center gap-2">
          <OrderStatusBadge status={order.status} />
          <span>
            {money(detail.totalMinor)} · placed {when(order.createdAt)}
          </span>
        </span>
      }
      actions={
        <Link className="text-sm underline underline-offset-4" href={`${root}/orders`}>
          All orders
        </Link>
      }
    >
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <div className="grid min-w-0 gap-6 lg:col-span-2">
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Items</CardTitle>
            </CardHeader>
            <CardContent>
              <Table aria-label="Items">
                <TableHeader>
                  <TableRow>
                    <TableHead scope="col">Item</TableHead>
                    <TableHead scope="col">Ordered</TableHead>
                    <TableHead scope="col">Shipped</TableHead>
                    <TableHead scope="col">Canceled</TableHead>
                    <TableHead scope="col" className="text-right">
                      Price
                    </TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {order.lineItems.map((l) => (
                    <TableRow key={l.id}>
                      <TableCell>{l.title}</TableCell>
                      <TableCell>{l.quantity}</TableCell>
                      <TableCell>{l.quantityFulfilled}</TableCell>
                      <TableCell>{l.quantityCanceled}</TableCell>
                      <TableCell className="text-right whitespace-nowrap">{money(l.priceMinor)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </CardContent>
          </Card>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Timeline</CardTitle>
              <CardDescription>
                Order events, payments, fulfilment, refunds and webhook attempts, oldest first.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <ol className="grid gap-3" aria-label="Timeline">
                {timeline.map((t, i) => (
                  <li key={i} className="grid gap-0.5 border-l-2 pl-3">
                    <span className="flex flex-wrap items-center gap-2 text-sm font-medium">
                      <Badge tone="outline">{t.kind}</Badge>
                      {t.title}
                      {t.amountMinor !== undefined ? <span>· {money(t.amountMinor)}</span> : null}
                    </span>
                    <time className="text-muted-foreground text-xs" dateTime={t.at.toISOString()}>
                      {when(t.at)}
                    </time>
                    {t.detail ? (
                      <span className="text-muted-foreground text-xs break-all">{t.detail}</span>
                    ) : null}
                  </li>
                ))}
              </ol>
            </CardContent>
          </Card>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Confirmation email</CardTitle>
              <CardDescription>
                {!buyerEmail
                  ? "The buyer gave no email: no confirmation is sent."
                  : confirmation.state === "sent"
                    ? `Sent to ${buyerEmail}.`
                    : `Queued for ${buyerEmail}: it goes out within seconds.`}
              </CardDescription>
            </CardHeader>
            {confirmation.captured ? (
              <CardContent>
                <p className="mb-2 text-sm font-medium">{confirmation.captured.subject}</p>
                <pre className="bg-muted rounded-md p-3 text-xs break-words whitespace-pre-wrap">
                  {confirmation.captured.text}
                </pre>
              </CardContent>
            ) : null}
          </Card>
        </div>
        <div className="grid min-w-0 content-start gap-6">
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Details</CardTitle>
            </CardHeader>
            <CardContent>
              <DataList>
                <DataItem label="Buyer">{buyerEmail ?? "—"}</DataItem>
                <DataItem label="Rail">{order.handlerId ?? "—"}</DataItem>
                <DataItem label="Payment reference">
                  <span className="font-mono text-xs break-all">{order.paymentRef ?? "—"}</span>
                </DataItem>
                <DataItem label="Agent">
                  <span title={detail.agent ?? undefined}>{agentHost(detail.agent)}</span>
                </DataItem>
                <DataItem label="Refundable">{money(refundable)}</DataItem>
              </DataList>
            </CardContent>
          </Card>
          {order.status !== "canceled" && order.status !== "refunded" ? (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Fulfil</CardTitle>
                <CardDescription>
                  {shippable ? "Ships every unit not shipped yet." : "Every unit has shipped."}
                </CardDescription>
              </CardHeader>
              {shippable ? (
                <CardContent>
                  <FulfilForm action={fulfilOrderAction.bind(null, store_slug, order.id)} />
                </CardContent>
              ) : null}
            </Card>
          ) : null}
          {isOwner && refundable > 0 ? (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Refund</CardTitle>
                <CardDescription>
                  {refundPending
                    ? "A refund is on its way back: wait for it before another."
                    : "All or part of what was paid goes back through the rail that charged."}
                </CardDescription>
              </CardHeader>
              <CardContent>
                <RefundForm
                  action={refundOrderAction.bind(null, store_slug, order.id)}
                  currency={order.currency}
                  refundable={money(refundable)}
                />
              </CardContent>
            </Card>
          ) : null}
          {isOwner && cancelable ? (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Cancel</CardTitle>
                <CardDescription>Puts the items back in stock and refunds what was paid.</CardDescription>
              </CardHeader>
              <CardContent>
                <CancelForm action={cancelOrderAction.bind(null, store_slug, order.id)} />
              </CardContent>
            </Card>
          ) : null}
          {!isOwner ? (
            <p className="text-muted-foreground text-sm">
              Refunds and cancellations are for the store&apos;s owners.
            </p>
          ) : null}
        </div>
      </div>
    </PageShell>
  );
}
