import { Money } from "@/components/cart/money";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { PaymentPage } from "@/lib/checkout/hosted-payment";

// The breakdown of the total before the buyer pays: each item, then how the total was reached (subtotal, discount,
// shipping, tax) and the total that will be charged.

const LABELS: Record<string, string> = {
  subtotal: "Subtotal",
  discount: "Discount",
  fulfillment: "Shipping",
  tax: "Tax",
};

export function OrderSummary({
  page,
}: {
  page: Pick<PaymentPage, "currency" | "lines" | "breakdown" | "totalMinor">;
}) {
  return (
    <Card aria-labelledby="summary-title">
      <CardHeader>
        <CardTitle id="summary-title" className="text-base">
          Order summary
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-4">
        <table aria-label="Order items" className="w-full text-sm">
          <thead className="sr-only">
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Quantity</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {page.lines.map((line) => (
              <tr key={line.title} data-testid="pay-line" className="border-b last:border-0">
                <td className="py-2 pr-2 font-medium">{line.title}</td>
                <td className="text-muted-foreground py-2 pr-2 text-right whitespace-nowrap">
                  × {line.quantity}
                </td>
                <td className="py-2 text-right">
                  <Money amountMinor={line.amountMinor} currency={page.currency} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <dl className="grid gap-1.5 border-t pt-3 text-sm" data-testid="pay-breakdown">
          {page.breakdown.map((t) => (
            <div key={t.type} className="flex justify-between gap-4">
              <dt className="text-muted-foreground">{t.display_text ?? LABELS[t.type] ?? t.type}</dt>
              <dd>
                <Money amountMinor={t.amount} currency={page.currency} />
              </dd>
            </div>
          ))}
          <div className="mt-1 flex justify-between gap-4 border-t pt-2 text-base font-semibold">
            <dt>Total to pay</dt>
            <dd data-testid="pay-total">
              <Money amountMinor={page.totalMinor} currency={page.currency} />
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}
