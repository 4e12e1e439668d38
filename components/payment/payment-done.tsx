import { CircleCheck, CircleSlash, RotateCcw } from "lucide-react";
import Link from "next/link";

import { Money } from "@/components/cart/money";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import type { PaymentReceipt } from "@/lib/checkout/payment-receipt";

// What the payment link shows once it is no longer active: paid (the order number and its receipt), refunded
// (the items sold out while the buyer paid), or simply inactive.

const TOTAL_LABELS: Record<string, string> = {
  subtotal: "Subtotal",
  discount: "Discount",
  fulfillment: "Shipping",
  tax: "Tax",
  total: "Total paid",
};

function Receipt({ receipt }: { receipt: PaymentReceipt }) {
  return (
    <section aria-labelledby="receipt-title" className="grid gap-4 text-left" data-testid="receipt">
      <h2 id="receipt-title" className="border-t pt-4 text-base font-semibold">
        Receipt
      </h2>
      <DataList>
        <DataItem label="Order number">
          <code data-testid="receipt-order-id">{receipt.orderId}</code>
        </DataItem>
        <DataItem label="Store">{receipt.storeName}</DataItem>
        <DataItem label="Placed">
          {receipt.placedAt.toISOString().replace("T", " ").slice(0, 16)} UTC
        </DataItem>
        {receipt.rail ? (
          <DataItem label="Paid by">
            {receipt.rail === "card" ? "Card" : "Crypto (Sui)"}
            {receipt.reference ? (
              <code className="text-muted-foreground ml-2 text-xs break-all">{receipt.reference}</code>
            ) : null}
          </DataItem>
        ) : null}
      </DataList>
      <ul className="grid gap-1.5 border-t pt-3 text-sm">
        {receipt.lines.map((l, i) => (
          <li key={i} className="flex justify-between gap-3">
            <span>
              {l.title} <span className="text-muted-foreground">× {l.quantity}</span>
            </span>
            <Money amountMinor={l.amountMinor} currency={receipt.currency} />
          </li>
        ))}
      </ul>
      <dl className="grid gap-1 border-t pt-3 text-sm">
        {receipt.totals.map((t) => (
          <div
            key={t.type}
            className={t.type === "total" ? "flex justify-between font-semibold" : "flex justify-between"}
          >
            <dt className={t.type === "total" ? undefined : "text-muted-foreground"}>
              {t.type === "total" ? TOTAL_LABELS.total : (t.display_text ?? TOTAL_LABELS[t.type] ?? t.type)}
            </dt>
            <dd data-testid={t.type === "total" ? "receipt-total" : undefined}>
              <Money amountMinor={t.amount} currency={receipt.currency} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

export function PaymentDone({ result, receipt }: { result: string | null; receipt: PaymentReceipt | null }) {
  const [Icon, title, text, tone] =
    result === "paid"
      ? ([
          CircleCheck,
          "Payment received",
          "Thank you: your order is placed. This payment link is no longer active.",
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
              "This payment link is no longer active: the checkout is completed, canceled or unknown.",
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
      <CardContent className="grid gap-3 text-center">
        <p role="status" data-testid="pay-gone">
          {text}
        </p>
        {receipt ? <Receipt receipt={receipt} /> : null}
        {result === "paid" ? (
          <p className="text-muted-foreground text-sm">
            Your agent finds this order when it reads the checkout; there is nothing more to pay.
          </p>
        ) : null}
        {result === "paid" ? (
          <p className="text-muted-foreground text-sm">
            Orders your linked agents place for your wallet account are also under{" "}
            <Link href="/account/orders">My orders</Link>.
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
