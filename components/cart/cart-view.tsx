import { Info, TriangleAlert } from "lucide-react";

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { LocalTime } from "@/components/ui/local-time";
import {
  Table,
  TableBody,
  TableCell,
  TableFooter,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import type { CartPage } from "@/lib/carts/get-cart-page";

import { Money } from "./money";

// The continue-in-browser view of a cart: what the agent put in it, at live prices. Read-only and not a payment
// page (seed §2): checkout and payment go through the agent.

export function CartView({ cart }: { cart: CartPage }) {
  return (
    <div className="grid gap-6">
      <div className="grid gap-2">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Your cart at {cart.storeName}</h1>
        <p className="text-muted-foreground max-w-prose">
          An agent prepared this cart for you. Prices and availability are live; checkout and payment happen
          through your agent.
        </p>
      </div>
      {cart.notices.map((n) => (
        <p
          key={n}
          role="status"
          className="bg-warning-soft text-warning-soft-foreground flex items-start gap-2 rounded-lg p-3 text-sm"
        >
          <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
          {n}
        </p>
      ))}
      <Table aria-label="Cart items">
        <TableHeader>
          <TableRow>
            <TableHead scope="col">Item</TableHead>
            <TableHead scope="col" className="text-right">
              Quantity
            </TableHead>
            <TableHead scope="col" className="hidden text-right sm:table-cell">
              Price
            </TableHead>
            <TableHead scope="col" className="text-right">
              Amount
            </TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {cart.lines.map((line) => (
            <TableRow key={line.title} data-testid="cart-line">
              <TableCell>
                <span className="font-medium">{line.title}</span>
                {line.problem ? (
                  <span className="text-destructive mt-1 block text-xs font-medium">{line.problem}</span>
                ) : null}
              </TableCell>
              <TableCell className="text-right">{line.quantity}</TableCell>
              <TableCell className="hidden text-right sm:table-cell">
                <Money amountMinor={line.unitPriceMinor} currency={cart.currency} />
              </TableCell>
              <TableCell className="text-right">
                <Money amountMinor={line.amountMinor} currency={cart.currency} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
        <TableFooter>
          {cart.discountMinor > 0 ? (
            <TableRow>
              <TableHead scope="row" colSpan={2} className="text-right">
                Discount
              </TableHead>
              <TableCell aria-hidden className="hidden sm:table-cell" />
              <TableCell data-testid="cart-discount" className="text-right">
                <Money amountMinor={-cart.discountMinor} currency={cart.currency} />
              </TableCell>
            </TableRow>
          ) : null}
          <TableRow>
            <TableHead scope="row" colSpan={2} className="text-foreground text-right text-sm">
              Estimated total (before shipping and tax)
            </TableHead>
            <TableCell aria-hidden className="hidden sm:table-cell" />
            <TableCell data-testid="cart-total" className="text-right font-semibold">
              <Money amountMinor={cart.totalMinor} currency={cart.currency} />
            </TableCell>
          </TableRow>
        </TableFooter>
      </Table>
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-base">
            <Info aria-hidden className="text-primary size-4" />
            What happens next
          </CardTitle>
          <CardDescription>
            Ask your agent to check out. It will show you the final total with shipping and tax, and you pay
            through it — never on this page.
          </CardDescription>
        </CardHeader>
        <CardContent className="text-muted-foreground text-sm">
          This cart is kept until <LocalTime at={cart.expiresAt} />.
        </CardContent>
      </Card>
    </div>
  );
}
