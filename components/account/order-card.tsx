import { Coins, CreditCard, Undo2 } from "lucide-react";

import { Money } from "@/components/cart/money";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import { LocalTime } from "@/components/ui/local-time";
import type { CryptoReceipt } from "@/lib/orders/crypto-receipts";
import type { BuyerOrderView } from "@/lib/orders/list-buyer-orders";
import { formatUnits } from "@/lib/payments/crypto/coins";

import { OrderStatusBadge } from "./order-status-badge";

// One order on My orders: where and when (in the reader's time zone), its status and total; the items; how it was
// paid; money returned or still owed back; and its timeline. Stores are named by their names; transaction
// references stay folded away for whoever needs them.

const TOTAL_LABELS: Record<string, string> = {
  subtotal: "Subtotal",
  discount: "Discount",
  fulfillment: "Shipping",
  tax: "Tax",
};

const REFUND_TONE = { pending: "warning", completed: "success", failed: "danger" } as const;
const REFUND_LABEL: Record<string, string> = {
  pending: "On its way back",
  completed: "Refunded",
  failed: "Refund failed",
};

/** Stripe's brand ids (visa, mastercard, amex, …) as people write them. */
const BRAND_NAMES: Record<string, string> = {
  amex: "American Express",
  diners: "Diners Club",
  discover: "Discover",
  jcb: "JCB",
  mastercard: "Mastercard",
  unionpay: "UnionPay",
  visa: "Visa",
};
const brandName = (brand: string): string => BRAND_NAMES[brand] ?? brand;

function Payment({ order, inGroup }: { order: BuyerOrderView; inGroup: boolean }) {
  const { rail, reference, paidMinor, card } = order.payment;
  if (!rail) return <span className="text-muted-foreground">Not paid</span>;
  const Icon = rail === "card" ? CreditCard : Coins;
  const symbols = order.crypto
    ? [...new Set(order.crypto.crypto_payment.legs.map((l) => l.symbol))].join(" + ")
    : "";
  return (
    <span className="grid gap-0.5">
      <span className="flex items-center gap-1.5 font-medium">
        <Icon aria-hidden className="size-4" />
        {rail === "crypto"
          ? symbols
            ? `Crypto (${symbols})`
            : "Crypto"
          : card
            ? `${brandName(card.brand)} •••• ${card.last4}`
            : "Card"}{" "}
        · <Money amountMinor={paidMinor} currency={order.currency} />
      </span>
      {order.crypto ? (
        <CryptoPayment receipt={order.crypto} order={order} inGroup={inGroup} />
      ) : reference ? (
        <Reference label="Payment reference" value={reference} />
      ) : null}
    </span>
  );
}

/** A provider's reference (PaymentIntent id, transaction digest): folded away, for support or an explorer. */
function Reference({ label, value }: { label: string; value: string }) {
  return (
    <details className="text-muted-foreground text-xs">
      <summary className="w-fit cursor-pointer">{label}</summary>
      <code className="break-all">{value}</code>
    </details>
  );
}

/**
 * This order's legs of the transaction and, for a combined payment, the other stores it paid (unless the card is
 * shown inside its group, which names them already).
 */
function CryptoPayment({
  receipt,
  order,
  inGroup,
}: {
  receipt: CryptoReceipt;
  order: BuyerOrderView;
  inGroup: boolean;
}) {
  const group = inGroup ? null : order.paymentGroup;
  return (
    <span className="grid gap-1" data-testid="order-crypto-payment">
      <span className="text-sm" data-testid="order-crypto-legs">
        {receipt.crypto_payment.legs
          .map((l) => `${formatUnits(l.amount, l.decimals)} ${l.symbol}`)
          .join(" + ")}
      </span>
      {group ? (
        <span className="grid gap-0.5 text-xs" data-testid="order-payment-group">
          <span className="text-muted-foreground">One payment for {group.stores.length} stores:</span>
          <ul className="grid gap-0.5">
            {group.stores.map((c) => (
              <li key={c.checkoutId} className="flex flex-wrap items-center gap-1.5">
                <span className="font-medium">{c.storeName}</span>
                {c.orderId === order.id ? (
                  <Badge tone="neutral">this order</Badge>
                ) : c.orderId ? null : (
                  <Badge tone="warning">paid, order not placed yet</Badge>
                )}
              </li>
            ))}
          </ul>
        </span>
      ) : null}
      <Reference label="Transaction" value={receipt.crypto_payment.transaction_digest} />
    </span>
  );
}

export function OrderCard({ order, inGroup = false }: { order: BuyerOrderView; inGroup?: boolean }) {
  const titleId = `order-${order.id}`;
  const Title = inGroup ? "h3" : "h2";
  return (
    <Card aria-labelledby={titleId} data-testid="my-order" className="overflow-hidden">
      <header className="bg-muted/50 flex flex-wrap items-start justify-between gap-3 border-b p-4 sm:px-6">
        <div className="grid gap-0.5">
          <Title id={titleId} className="font-semibold">
            {order.store.name}
          </Title>
          <p className="text-muted-foreground text-xs">
            <LocalTime at={order.createdAt} /> · Order <code data-testid="order-id">{order.id}</code>
          </p>
        </div>
        <div className="flex items-center gap-3">
          <OrderStatusBadge status={order.status} />
          <span className="font-semibold" data-testid="order-total">
            <Money amountMinor={order.totalMinor} currency={order.currency} />
          </span>
        </div>
      </header>
      <div className="grid gap-6 p-4 sm:px-6 lg:grid-cols-[3fr_2fr]">
        <section aria-label="Items and totals" className="grid content-start gap-3">
          <ul className="grid gap-2 text-sm">
            {order.lines.map((l) => (
              <li key={l.id} className="flex justify-between gap-3" data-testid="my-order-line">
                <span>
                  <span className="font-medium">{l.title}</span>{" "}
                  <span className="text-muted-foreground">× {l.quantity}</span>
                  {l.canceled > 0 ? (
                    <Badge tone="neutral" className="ml-2">
                      {l.canceled} canceled
                    </Badge>
                  ) : null}
                  {l.fulfilled > 0 ? (
                    <Badge tone="info" className="ml-2">
                      {l.fulfilled} shipped
                    </Badge>
                  ) : null}
                </span>
                <Money amountMinor={l.amountMinor} currency={order.currency} />
              </li>
            ))}
          </ul>
          <dl className="grid gap-1 border-t pt-2 text-sm">
            {order.totals.map((t) => (
              <div
                key={t.type}
                className={t.type === "total" ? "flex justify-between font-semibold" : "flex justify-between"}
              >
                <dt className={t.type === "total" ? undefined : "text-muted-foreground"}>
                  {t.type === "total" ? "Total" : (t.display_text ?? TOTAL_LABELS[t.type] ?? t.type)}
                </dt>
                <dd>
                  <Money amountMinor={t.amount} currency={order.currency} />
                </dd>
              </div>
            ))}
          </dl>
        </section>
        <div className="grid content-start gap-5">
          <DataList>
            <DataItem label="Payment">
              <Payment order={order} inGroup={inGroup} />
            </DataItem>
            {order.refunds.length > 0 ? (
              <DataItem label="Money back">
                <ul className="grid gap-1.5" data-testid="order-refunds">
                  {order.refunds.map((r) => (
                    <li key={r.id} className="flex flex-wrap items-center gap-2">
                      <Undo2 aria-hidden className="text-muted-foreground size-4" />
                      <Money amountMinor={r.amountMinor} currency={order.currency} />
                      <Badge tone={REFUND_TONE[r.status as keyof typeof REFUND_TONE] ?? "neutral"}>
                        {REFUND_LABEL[r.status] ?? r.status}
                      </Badge>
                    </li>
                  ))}
                </ul>
                {order.owedMinor > 0 ? (
                  <p className="text-muted-foreground mt-1 text-xs">
                    <Money amountMinor={order.owedMinor} currency={order.currency} /> is owed back to you and
                    on its way through the payment rail.
                  </p>
                ) : null}
              </DataItem>
            ) : null}
            {order.cryptoOwedBack.length > 0 ? (
              <DataItem label="Crypto owed back to you">
                <ul className="grid gap-2" data-testid="order-crypto-owed">
                  {order.cryptoOwedBack.map((r) => (
                    <li key={r.id} className="grid gap-1">
                      <span className="flex flex-wrap items-center gap-2">
                        <Undo2 aria-hidden className="text-muted-foreground size-4" />
                        <span className="font-medium">{r.amounts.map((a) => a.text).join(" + ")}</span>
                        <Badge tone={r.status === "closed" ? "success" : "warning"}>
                          {r.status === "closed" ? "Sent back" : "Owed by the store"}
                        </Badge>
                      </span>
                      <span className="text-muted-foreground text-xs break-all">
                        {r.reason}
                        {r.refundDigest ? ` · refund transaction ${r.refundDigest}` : ""}
                      </span>
                    </li>
                  ))}
                </ul>
              </DataItem>
            ) : null}
          </DataList>
          <section aria-label="Timeline">
            <h3 className="text-muted-foreground mb-2 text-sm font-medium">Timeline</h3>
            <ol className="relative grid gap-3 border-l pl-4 text-sm" data-testid="order-timeline">
              {order.timeline.map((e, i) => (
                <li key={i} className="relative">
                  <span
                    aria-hidden
                    className="bg-primary absolute top-1.5 -left-[21px] size-2.5 rounded-full"
                  />
                  <p className="font-medium">{e.title}</p>
                  <p className="text-muted-foreground text-xs">
                    <LocalTime at={e.at} />
                    {e.detail ? ` · ${e.detail}` : ""}
                  </p>
                </li>
              ))}
            </ol>
          </section>
        </div>
      </div>
    </Card>
  );
}

/** The orders one combined payment paid (one transaction for several stores), as one purchase. */
export function PaymentGroup({ orders }: { orders: BuyerOrderView[] }) {
  const first = orders[0];
  if (!first?.paymentGroup) return null;
  const stores = first.paymentGroup.stores;
  const currencies = new Set(orders.map((o) => o.currency));
  const headingId = `payment-group-${first.paymentGroup.id}`;
  return (
    <section
      aria-labelledby={headingId}
      data-testid="my-payment-group"
      className="border-border grid gap-4 rounded-lg border border-dashed p-3 sm:p-4"
    >
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <div className="grid gap-0.5">
          <h2 id={headingId} className="font-semibold">
            One payment for {stores.length} stores
          </h2>
          <p className="text-muted-foreground text-sm">{stores.map((s) => s.storeName).join(", ")}</p>
        </div>
        {currencies.size === 1 ? (
          <span className="font-semibold" data-testid="payment-group-total">
            <Money
              amountMinor={orders.reduce((sum, o) => sum + o.payment.paidMinor, 0)}
              currency={first.currency}
            />
          </span>
        ) : null}
      </header>
      {orders.map((o) => (
        <OrderCard key={o.id} order={o} inGroup />
      ))}
    </section>
  );
}
