import type { CartPage } from "@/lib/carts/get-cart-page";

import { Money } from "./money";

// The continue-in-browser view of a cart: what the agent put in it, at live prices. Read-only and not a payment
// page (seed §2): checkout and payment go through the agent.

export function CartView({ cart }: { cart: CartPage }) {
  return (
    <>
      <h1>Your cart at {cart.storeName}</h1>
      <p className="lead">
        An agent prepared this cart for you. Prices and availability are live; checkout and payment happen
        through your agent.
      </p>
      {cart.notices.map((n) => (
        <p key={n} className="notice" role="status">
          {n}
        </p>
      ))}
      <table aria-label="Cart items">
        <thead>
          <tr>
            <th>Item</th>
            <th>Quantity</th>
            <th>Price</th>
            <th>Amount</th>
          </tr>
        </thead>
        <tbody>
          {cart.lines.map((line) => (
            <tr key={line.title} data-testid="cart-line">
              <td>
                {line.title}
                {line.problem ? (
                  <>
                    <br />
                    <small className="problem">{line.problem}</small>
                  </>
                ) : null}
              </td>
              <td>{line.quantity}</td>
              <td>
                <Money amountMinor={line.unitPriceMinor} currency={cart.currency} />
              </td>
              <td>
                <Money amountMinor={line.amountMinor} currency={cart.currency} />
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          {cart.discountMinor > 0 ? (
            <tr>
              <th colSpan={3}>Discount</th>
              <td data-testid="cart-discount">
                <Money amountMinor={-cart.discountMinor} currency={cart.currency} />
              </td>
            </tr>
          ) : null}
          <tr>
            <th colSpan={3}>Estimated total (before shipping and tax)</th>
            <td data-testid="cart-total">
              <Money amountMinor={cart.totalMinor} currency={cart.currency} />
            </td>
          </tr>
        </tfoot>
      </table>
      <p className="muted">
        This cart is kept until {cart.expiresAt.toISOString().slice(0, 10)}. Store:{" "}
        <code>{cart.storeSlug}</code>
      </p>
    </>
  );
}
