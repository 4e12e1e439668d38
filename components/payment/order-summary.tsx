import { Mail, Package, Truck } from "lucide-react";

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatMoney } from "@/components/ui/format";
import type { PaymentPageDetails } from "@/lib/checkout/payment-page-details";

// Everything the buyer pays for, before they pay (as Stripe Checkout shows it): the store, each item with its
// image, where it ships and how, the receipt email, then how the total was reached (subtotal, discount, shipping,
// tax) and the total that will be charged. Money in the viewer's locale (components/ui/format.ts).

export const TOTAL_LABELS: Record<string, string> = {
  subtotal: "Subtotal",
  discount: "Discount",
  fulfillment: "Shipping",
  tax: "Tax",
  fee: "Fee",
};

type Line = { title: string; quantity: number; amountMinor: number; imageUrl?: string | null };
type Breakdown = { type: string; amount: number; display_text?: string }[];

const countryName = (code: string, locale: string): string => {
  try {
    return new Intl.DisplayNames([locale], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
};

/** The lines of an order: image, title and quantity, amount. A list, so a screen reader counts the items. */
export function OrderLines({ lines, currency, locale }: { lines: Line[]; currency: string; locale: string }) {
  return (
    <ul aria-label="Items" className="grid gap-3">
      {lines.map((line, i) => (
        <li key={`${line.title}-${i}`} data-testid="pay-line" className="flex items-center gap-3 text-sm">
          {line.imageUrl ? (
            // eslint-disable-next-line @next/next/no-img-element -- a product image from the store's catalog
            <img
              src={line.imageUrl}
              alt=""
              width={48}
              height={48}
              loading="lazy"
              className="bg-muted size-12 shrink-0 rounded-md border object-cover"
            />
          ) : (
            <span aria-hidden className="bg-muted grid size-12 shrink-0 place-items-center rounded-md border">
              <Package className="text-muted-foreground size-5" />
            </span>
          )}
          <span className="grid min-w-0 flex-1">
            <span className="font-medium break-words">{line.title}</span>
            <span className="text-muted-foreground text-xs">Qty {line.quantity}</span>
          </span>
          <span className="money shrink-0 tabular-nums">
            {formatMoney(line.amountMinor, currency, locale)}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Subtotal, discounts, shipping, tax, then the total (bold): one definition list. */
export function OrderTotals({
  breakdown,
  totalMinor,
  currency,
  locale,
  totalLabel = "Total due",
  testId = "pay-total",
}: {
  breakdown: Breakdown;
  totalMinor: number;
  currency: string;
  locale: string;
  totalLabel?: string;
  testId?: string;
}) {
  return (
    <dl className="grid gap-1.5 text-sm" data-testid="pay-breakdown">
      {breakdown
        .filter((t) => t.type !== "total")
        .map((t, i) => (
          <div key={`${t.type}-${i}`} className="flex justify-between gap-4">
            <dt className="text-muted-foreground">{t.display_text ?? TOTAL_LABELS[t.type] ?? t.type}</dt>
            <dd className="money tabular-nums">{formatMoney(t.amount, currency, locale)}</dd>
          </div>
        ))}
      <div className="mt-1 flex justify-between gap-4 border-t pt-2 text-base font-semibold">
        <dt>{totalLabel}</dt>
        <dd data-testid={testId} className="money tabular-nums">
          {formatMoney(totalMinor, currency, locale)}
        </dd>
      </div>
    </dl>
  );
}

/** Receipt email, ship-to address and shipping option, each only when the checkout has it. */
export function OrderDetails({ details, locale }: { details: PaymentPageDetails; locale: string }) {
  const { email, shipTo, shippingOption } = details;
  if (!email && !shipTo && !shippingOption) return null;
  return (
    <dl className="grid gap-3 text-sm sm:grid-cols-2" data-testid="pay-details">
      {shipTo ? (
        <div className="grid content-start gap-0.5">
          <dt className="text-muted-foreground flex items-center gap-1.5 text-xs font-medium uppercase">
            <Truck aria-hidden className="size-3.5" /> Ship to
          </dt>
          <dd data-testid="pay-ship-to" className="break-words">
            {[shipTo.name, ...shipTo.lines, shipTo.country ? countryName(shipTo.country, locale) : null]
              .filter(Boolean)
              .map((l, i) => (
                <span key={i} className="block">
                  {l}
                </span>
              ))}
            {shippingOption ? (
              <span className="text-muted-foreground block" data-testid="pay-shipping-option">
                {shippingOption}
              </span>
            ) : null}
          </dd>
        </div>
      ) : null}
      {email ? (
        <div className="grid content-start gap-0.5">
          <dt className="text-muted-foreground flex items-center gap-1.5 text-xs font-medium uppercase">
            <Mail aria-hidden className="size-3.5" /> Receipt to
          </dt>
          <dd data-testid="pay-email" className="break-all">
            {email}
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

export function OrderSummary({
  page,
  locale,
}: {
  page: {
    storeName: string;
    currency: string;
    lines: Line[];
    breakdown: Breakdown;
    totalMinor: number;
    details: PaymentPageDetails;
  };
  locale: string;
}) {
  return (
    <Card aria-labelledby="summary-title">
      <CardHeader>
        <CardTitle id="summary-title" className="text-base">
          Order summary
        </CardTitle>
        <CardDescription>From {page.storeName}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <OrderLines lines={page.lines} currency={page.currency} locale={locale} />
        <div className="border-t pt-4">
          <OrderDetails details={page.details} locale={locale} />
        </div>
        <div className="border-t pt-3">
          <OrderTotals
            breakdown={page.breakdown}
            totalMinor={page.totalMinor}
            currency={page.currency}
            locale={locale}
          />
        </div>
      </CardContent>
    </Card>
  );
}
