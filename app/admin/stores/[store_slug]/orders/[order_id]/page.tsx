import { ImageOff } from "lucide-react";
import type { Metadata } from "next";

import { OrderActions, OrderRequestPanel } from "@/components/admin/order-forms";
import {
  agentHost,
  cardLabel,
  FulfilmentBadge,
  orderNumber,
  OrderStatusBadge,
} from "@/components/admin/order-status";
import { loadStorePage } from "@/components/admin/store-page";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { CopyableCode } from "@/components/ui/copy-button";
import { DataItem, DataList } from "@/components/ui/data-list";
import { formatCoin, formatMoney } from "@/components/ui/format";
import { LocalTime } from "@/components/ui/local-time";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { merchantOrderView, type OrderPayment } from "@/lib/orders/merchant-order-view";

import {
  approveRequestAction,
  cancelOrderAction,
  declineRequestAction,
  fulfilOrderAction,
  refundOrderAction,
} from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Order — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string; order_id: string }> };

const paymentLabel = (payment: OrderPayment, locale: string): string =>
  payment.rail === "card"
    ? cardLabel(payment.brand, payment.last4)
    : payment.rail === "crypto"
      ? payment.legs.map((l) => formatCoin(l.amount, l.decimals, l.symbol, locale)).join(" + ") || "Crypto"
      : "Not paid";

const TONE_DOT = {
  neutral: "bg-muted-foreground",
  success: "bg-success-soft-foreground",
  danger: "bg-destructive",
} as const;

export default async function OrderPage({ params }: Props) {
  const { store_slug, order_id } = await params;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}`;
  const view = await loadStorePage(`${root}/orders/${encodeURIComponent(order_id)}`, (account) =>
    merchantOrderView(account, store_slug, order_id),
  );
  const { order, buyer, shipTo, lines, breakdown, payment, fulfilment, can } = view;
  const locale = await viewerLocale(view.store.country);
  const money = (minor: number) => formatMoney(minor, order.currency, locale);
  const paidWith = paymentLabel(payment, locale);
  const toShip = lines.reduce((s, l) => s + l.toShip, 0);
  const refunds = view.money.refundedMinor + view.money.refundPendingMinor;
  const waiting = view.waitingRequest;
  const agent = view.agentName ?? `the agent ${agentHost(view.agent)}`;
  return (
    <PageShell
      back={{ href: `${root}/orders`, label: "Orders" }}
      title={`Order ${orderNumber(order.id)}`}
      description={
        <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <OrderStatusBadge status={order.status} />
          <FulfilmentBadge state={fulfilment.state} status={order.status} />
          <span>
            Placed <LocalTime at={order.createdAt} /> · {money(view.totalMinor)}
          </span>
        </span>
      }
      actions={
        <OrderActions
          toShip={toShip}
          fulfil={can.fulfil ? fulfilOrderAction.bind(null, store_slug, order.id) : null}
          refund={
            can.refund
              ? {
                  action: refundOrderAction.bind(null, store_slug, order.id),
                  currency: order.currency,
                  refundable: money(view.money.refundableMinor),
                }
              : null
          }
          cancel={
            can.cancel
              ? {
                  action: cancelOrderAction.bind(null, store_slug, order.id),
                  refundNote:
                    view.money.refundableMinor > 0
                      ? `${money(view.money.refundableMinor)} goes back to the buyer (${paidWith})`
                      : "nothing was paid, so nothing goes back",
                }
              : null
          }
        />
      }
    >
      {/* on a phone: items, then who and where to ship (what shipping needs), then the timeline; from lg up the
          customer, ship-to and payment cards sit in a column beside the rest */}
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-3">
        <div className="grid min-w-0 gap-6 lg:col-span-2">
          {waiting ? (
            <OrderRequestPanel
              title={
                waiting.type === "cancellation"
                  ? "Cancellation requested"
                  : `Refund requested: ${money(waiting.amountMinor)}`
              }
              from={
                <>
                  By {agent}, <LocalTime at={waiting.createdAt} />
                </>
              }
              reason={waiting.reason}
              consequence={
                waiting.type === "cancellation"
                  ? `the items go back in stock and ${view.money.refundableMinor > 0 ? `${money(view.money.refundableMinor)} goes back to the buyer (${paidWith})` : "nothing goes back, as nothing was paid"}`
                  : `${money(waiting.amountMinor)} goes back to the buyer (${paidWith})`
              }
              approve={
                view.role === "staff"
                  ? null
                  : approveRequestAction.bind(null, store_slug, order.id, waiting.id)
              }
              decline={
                view.role === "staff"
                  ? null
                  : declineRequestAction.bind(null, store_slug, order.id, waiting.id)
              }
            />
          ) : null}
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Items</CardTitle>
              <CardDescription>
                {fulfilment.state === "canceled"
                  ? "Every item was canceled."
                  : `${fulfilment.shippedUnits} of ${fulfilment.units} shipped.`}
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-5">
              <ul className="divide-y rounded-lg border" aria-label="Items">
                {lines.map((l) => (
                  <li key={l.id} className="flex items-start gap-3 p-3">
                    {l.imageUrl ? (
                      // eslint-disable-next-line @next/next/no-img-element -- the merchant's own product pictures, any host
                      <img
                        src={l.imageUrl}
                        alt={l.imageAlt}
                        width={56}
                        height={56}
                        loading="lazy"
                        className="bg-muted size-14 shrink-0 rounded-md border object-cover"
                      />
                    ) : (
                      <span className="bg-muted text-muted-foreground flex size-14 shrink-0 items-center justify-center rounded-md border">
                        <ImageOff aria-hidden className="size-5" />
                      </span>
                    )}
                    <div className="grid min-w-0 flex-1 gap-0.5">
                      <span className="font-medium break-words">{l.title}</span>
                      <span className="text-muted-foreground text-sm">
                        {l.quantity} × {money(l.unitMinor)}
                      </span>
                      <span className="text-muted-foreground text-xs">
                        {l.canceled === l.quantity
                          ? "Canceled"
                          : [
                              `${l.fulfilled} of ${l.quantity - l.canceled} shipped`,
                              l.canceled ? `${l.canceled} canceled` : null,
                            ]
                              .filter(Boolean)
                              .join(" · ")}
                      </span>
                    </div>
                    <span className="text-right font-medium whitespace-nowrap">{money(l.lineMinor)}</span>
                  </li>
                ))}
              </ul>
              <dl className="grid gap-2 text-sm" data-testid="order-breakdown">
                {breakdown.map((row) => (
                  <div key={row.type} className="flex justify-between gap-4">
                    <dt className="text-muted-foreground">{row.label}</dt>
                    <dd className="whitespace-nowrap">{money(row.amountMinor)}</dd>
                  </div>
                ))}
                <div className="flex justify-between gap-4 border-t pt-2 text-base font-semibold">
                  <dt>Total</dt>
                  <dd className="whitespace-nowrap">{money(view.totalMinor)}</dd>
                </div>
                {order.serviceCouponMinor > 0 ? (
                  <div className="flex justify-between gap-4">
                    <dt className="text-muted-foreground">Service coupon (the service pays you)</dt>
                    <dd className="whitespace-nowrap">{money(order.serviceCouponMinor)}</dd>
                  </div>
                ) : null}
                <div className="flex justify-between gap-4">
                  <dt className="text-muted-foreground">Paid · {paidWith}</dt>
                  <dd className="whitespace-nowrap">{money(view.money.paidMinor)}</dd>
                </div>
                {refunds > 0 ? (
                  <>
                    <div className="flex justify-between gap-4">
                      <dt className="text-muted-foreground">
                        Refunded
                        {view.money.refundPendingMinor > 0
                          ? ` (${money(view.money.refundPendingMinor)} on its way back)`
                          : ""}
                      </dt>
                      <dd className="whitespace-nowrap">−{money(refunds)}</dd>
                    </div>
                    <div className="flex justify-between gap-4 font-medium">
                      <dt>Net</dt>
                      <dd className="whitespace-nowrap">{money(view.money.paidMinor - refunds)}</dd>
                    </div>
                  </>
                ) : null}
              </dl>
            </CardContent>
          </Card>
        </div>
        <div className="grid min-w-0 content-start gap-6 lg:row-span-2">
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Customer</CardTitle>
            </CardHeader>
            <CardContent className="grid gap-1 text-sm">
              <span className="font-medium">{buyer.name ?? "No name given"}</span>
              {buyer.email ? (
                <a href={`mailto:${buyer.email}`} className="break-all">
                  {buyer.email}
                </a>
              ) : (
                <span className="text-muted-foreground">No email given</span>
              )}
              <span className="text-muted-foreground">
                Bought by{" "}
                <span title={view.agent ?? undefined} className="break-words">
                  {agent}
                </span>
              </span>
            </CardContent>
          </Card>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Ship to</CardTitle>
            </CardHeader>
            <CardContent className="grid gap-3 text-sm">
              {shipTo ? (
                <address className="grid gap-0.5 not-italic" data-testid="ship-to">
                  {shipTo.name ? <span className="font-medium">{shipTo.name}</span> : null}
                  {shipTo.lines.map((line) => (
                    <span key={line}>{line}</span>
                  ))}
                  {shipTo.phone ? <span>{shipTo.phone}</span> : null}
                </address>
              ) : (
                <p className="text-muted-foreground">No shipping address: nothing to ship.</p>
              )}
              {view.shippingOption ? (
                <p>
                  <span className="text-muted-foreground">Shipping: </span>
                  {view.shippingOption}
                </p>
              ) : null}
            </CardContent>
          </Card>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Payment</CardTitle>
            </CardHeader>
            <CardContent>
              <DataList>
                <DataItem label="Paid with">{paidWith}</DataItem>
                <DataItem label="Paid">{money(view.money.paidMinor)}</DataItem>
                {refunds > 0 ? <DataItem label="Refunded">{money(refunds)}</DataItem> : null}
                <DataItem label="Can be refunded">{money(view.money.refundableMinor)}</DataItem>
                {payment.rail === "crypto" ? (
                  <DataItem label="Transaction">
                    <code className="font-mono text-xs break-all">{payment.digest}</code>
                  </DataItem>
                ) : null}
                <DataItem label="Order ID">
                  <CopyableCode value={order.id} what="the order ID" testId="order-id" />
                </DataItem>
              </DataList>
              {view.role === "staff" ? (
                <p className="text-muted-foreground mt-4 text-sm">
                  Refunds and cancellations are for the store&apos;s owners.
                </p>
              ) : view.money.refundPendingMinor > 0 ? (
                <p className="text-muted-foreground mt-4 text-sm">
                  A refund is on its way back: wait for it before another.
                </p>
              ) : null}
            </CardContent>
          </Card>
        </div>
        <div className="grid min-w-0 gap-6 lg:col-span-2">
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Timeline</CardTitle>
              <CardDescription>What happened to this order, oldest first.</CardDescription>
            </CardHeader>
            <CardContent>
              <ol className="grid gap-4" aria-label="Timeline">
                {view.timeline.map((t, i) => (
                  <li key={i} className="relative grid gap-0.5 pl-5">
                    <span
                      aria-hidden
                      className={cn("absolute top-1.5 left-0 size-2.5 rounded-full", TONE_DOT[t.tone])}
                    />
                    <span className="text-sm font-medium">
                      {t.title}
                      {t.amountMinor !== undefined ? ` · ${money(t.amountMinor)}` : ""}
                    </span>
                    <LocalTime at={t.at} className="text-muted-foreground text-xs" />
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
                {!buyer.email
                  ? "The buyer gave no email: no confirmation is sent."
                  : view.confirmation.state === "sent"
                    ? `Sent to ${buyer.email}.`
                    : `Queued for ${buyer.email}: it goes out within seconds.`}
              </CardDescription>
            </CardHeader>
            {view.confirmation.captured ? (
              <CardContent>
                <p className="mb-2 text-sm font-medium">{view.confirmation.captured.subject}</p>
                <pre className="bg-muted rounded-md p-3 text-xs break-words whitespace-pre-wrap">
                  {view.confirmation.captured.text}
                </pre>
              </CardContent>
            ) : null}
          </Card>
        </div>
      </div>
    </PageShell>
  );
}
