import { CircleCheck, CircleSlash, ExternalLink, RotateCcw } from "lucide-react";
import Link from "next/link";

import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import { formatCoin } from "@/components/ui/format";
import { LocalTime } from "@/components/ui/local-time";
import type { PaidWith, PaymentReceipt } from "@/lib/checkout/payment-receipt";

import { OrderDetails, OrderLines, OrderTotals } from "./order-summary";
import { cardLabel, explorerUrl, shortDigest } from "./pay-text";

// What the payment link shows once it is no longer active: paid (the receipt: what was bought, from whom, the
// total, how it was paid and where to see it later), refunded (the items sold out while the buyer paid), declined
// by the buyer (owed back), or simply inactive. The paid page's address carries a sealed receipt reference, so
// opening it again shows the same receipt.

/** The coins of a crypto payment as people read them: "434.26 USDC" or "12.5 SUI + 3 USDC". */
export const coinsText = (coins: Extract<PaidWith, { kind: "crypto" }>["coins"], locale: string): string =>
  coins.map((c) => formatCoin(c.amount, c.decimals, c.symbol, locale, c.decimals)).join(" + ");

/** How it was paid: "Visa •••• 4242", or the coins and the transaction (an explorer link on a real network). */
export function PaidWithText({ paidWith, locale }: { paidWith: PaidWith; locale: string }) {
  if (paidWith.kind === "card") {
    return <span data-testid="receipt-paid-with">{cardLabel(paidWith.brand, paidWith.last4)}</span>;
  }
  const link = explorerUrl(paidWith.network, paidWith.transaction);
  return (
    <span className="grid gap-0.5" data-testid="receipt-paid-with">
      <span>{coinsText(paidWith.coins, locale)}</span>
      <span className="text-muted-foreground text-xs">
        Transaction{" "}
        {link ? (
          <a
            href={link}
            target="_blank"
            rel="noreferrer"
            className="text-primary inline-flex items-center gap-1"
          >
            <code title={paidWith.transaction}>{shortDigest(paidWith.transaction)}</code>
            <ExternalLink aria-hidden className="size-3" />
            <span className="sr-only">(opens the explorer)</span>
          </a>
        ) : (
          <code title={paidWith.transaction} data-testid="receipt-transaction">
            {shortDigest(paidWith.transaction)}
          </code>
        )}
        {paidWith.network === "sandbox" ? " (sandbox)" : null}
      </span>
    </span>
  );
}

function Receipt({ receipt, locale }: { receipt: PaymentReceipt; locale: string }) {
  return (
    <section aria-labelledby="receipt-title" className="grid gap-4 text-left" data-testid="receipt">
      <h2 id="receipt-title" className="border-t pt-4 text-base font-semibold">
        Receipt
      </h2>
      <DataList>
        <DataItem label="Store">
          <span data-testid="receipt-store">{receipt.storeName}</span>
        </DataItem>
        <DataItem label="Order number">
          <code data-testid="receipt-order-id" className="break-all">
            {receipt.orderId}
          </code>
        </DataItem>
        <DataItem label="Date">
          <LocalTime at={receipt.placedAt.toISOString()} />
        </DataItem>
        {receipt.paidWith ? (
          <DataItem label="Paid with">
            <PaidWithText paidWith={receipt.paidWith} locale={locale} />
          </DataItem>
        ) : null}
      </DataList>
      <div className="border-t pt-4">
        <OrderLines lines={receipt.lines} currency={receipt.currency} locale={locale} />
      </div>
      <div className="border-t pt-4">
        <OrderDetails details={receipt.details} locale={locale} />
      </div>
      <div className="border-t pt-3">
        <OrderTotals
          breakdown={receipt.totals}
          totalMinor={receipt.totalMinor}
          currency={receipt.currency}
          locale={locale}
          totalLabel="Total paid"
          testId="receipt-total"
        />
      </div>
    </section>
  );
}

export function MyOrdersLink({ children = "See your orders under My orders" }: { children?: string }) {
  return (
    <Link
      href="/account/orders"
      data-testid="my-orders-link"
      className="text-primary justify-self-center font-medium underline underline-offset-4"
    >
      {children}
    </Link>
  );
}

export function PaymentDone({
  result,
  receipt,
  locale,
}: {
  result: string | null;
  receipt: PaymentReceipt | null;
  locale: string;
}) {
  const [Icon, title, text, tone] =
    result === "paid"
      ? ([
          CircleCheck,
          "Payment received",
          receipt
            ? `Thank you: your order is placed with ${receipt.storeName}. There is nothing more to pay.`
            : "Thank you: your order is placed. There is nothing more to pay.",
          "text-success-soft-foreground bg-success-soft",
        ] as const)
      : result === "owed_back"
        ? ([
            RotateCcw,
            "Payment declined",
            "You declined the payment, so no order was placed. The store owes the money back to your wallet and sends it to the address that paid.",
            "text-warning-soft-foreground bg-warning-soft",
          ] as const)
        : result === "refunded"
          ? ([
              RotateCcw,
              "Payment refunded",
              "The items sold out while you were paying, so no order was placed and your payment was refunded in full. This payment link is no longer active.",
              "text-warning-soft-foreground bg-warning-soft",
            ] as const)
          : ([
              CircleSlash,
              "Payment link",
              "This payment link is no longer active: the checkout is completed, canceled or unknown. If you paid it, your receipt is with your orders.",
              "text-muted-foreground bg-muted",
            ] as const);
  return (
    <Card>
      <CardHeader className="items-center text-center">
        <div aria-hidden className={`mx-auto grid size-14 place-items-center rounded-full ${tone}`}>
          <Icon className="size-7" />
        </div>
        <CardTitle as="h1" className="text-2xl">
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-4 text-center">
        <p role="status" data-testid="pay-gone">
          {text}
        </p>
        {receipt ? <Receipt receipt={receipt} locale={locale} /> : null}
        {result === "paid" ? (
          <p className="text-muted-foreground text-sm">
            Your agent sees this order too. Orders for your wallet account stay under My orders.
          </p>
        ) : null}
        <MyOrdersLink>
          {result === "paid" ? "Go to My orders" : "See your orders under My orders"}
        </MyOrdersLink>
      </CardContent>
    </Card>
  );
}
