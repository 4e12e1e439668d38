import { CircleCheck, CircleSlash, RotateCcw } from "lucide-react";
import Link from "next/link";

import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";

// What the payment link shows once it is no longer active: paid (the order is placed), refunded (the items sold out
// while the buyer paid), or simply inactive.

export function PaymentDone({ result }: { result: string | null }) {
  const [Icon, title, text, tone] =
    result === "paid"
      ? ([
          CircleCheck,
          "Payment received",
          "Thank you: your order is placed. This payment link is no longer active.",
          "text-success-soft-foreground bg-success-soft",
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
        {result === "paid" ? (
          <p className="text-muted-foreground text-sm">
            Your agent has the order confirmation. Orders your linked agents place for your wallet account are
            also under <Link href="/account/orders">My orders</Link>.
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
