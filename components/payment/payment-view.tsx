import { Money } from "@/components/cart/money";
import type { PaymentPage } from "@/lib/checkout/hosted-payment";

import { LiveCardForm } from "./live-card-form";

// The hosted payment page's view (issue #5 §3): the store, items and total, then the card step. Test mode: the
// sandbox 3-DS challenge or a sandbox card form (plain HTML forms, no client script). Live mode: Stripe's
// Payment Element (LiveCardForm, a client component), or why it cannot run.

const NOTICES: Record<string, string> = {
  declined: "The card was declined. Try another card.",
  challenge: "Your bank asks you to confirm this payment.",
  mismatch: "That payment does not belong to this checkout: nothing was charged here. Pay below.",
  provider_error: "The card payment service could not be reached. Please try again in a moment.",
};

export function PaymentView({
  page,
  action,
  notice,
}: {
  page: PaymentPage;
  action: string;
  notice: string | null;
}) {
  return (
    <>
      <h1>Pay {page.storeName}</h1>
      {notice && NOTICES[notice] ? (
        <p className="notice" role="status">
          {NOTICES[notice]}
        </p>
      ) : null}
      <table aria-label="Order items">
        <thead>
          <tr>
            <th>Item</th>
            <th>Quantity</th>
            <th>Amount</th>
          </tr>
        </thead>
        <tbody>
          {page.lines.map((line) => (
            <tr key={line.title} data-testid="pay-line">
              <td>{line.title}</td>
              <td>{line.quantity}</td>
              <td>
                <Money amountMinor={line.amountMinor} currency={page.currency} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Total to pay:{" "}
        <strong data-testid="pay-total">
          <Money amountMinor={page.totalMinor} currency={page.currency} />
        </strong>
      </p>
      {page.live ? (
        <section aria-label="Card">
          <h2>Card</h2>
          {page.live.status === "ready" ? (
            <>
              {page.lastError ? <p className="problem">{page.lastError}</p> : null}
              <LiveCardForm
                publishableKey={page.live.publishableKey}
                clientSecret={page.live.clientSecret}
                returnUrl={page.live.returnUrl}
                action={action}
              />
            </>
          ) : (
            <p className="problem" role="status" data-testid="pay-unavailable">
              {page.live.message}
            </p>
          )}
        </section>
      ) : page.step === "challenge" ? (
        <section aria-label="3-D Secure">
          <h2>3-D Secure (sandbox)</h2>
          <p>This is the sandbox bank challenge. Confirm or refuse the payment.</p>
          <form method="post" action={action}>
            <button type="submit" name="action" value="approve">
              Complete authentication
            </button>{" "}
            <button type="submit" name="action" value="fail">
              Fail authentication
            </button>
          </form>
        </section>
      ) : (
        <section aria-label="Card">
          <h2>Card (sandbox)</h2>
          {page.lastError ? <p className="problem">{page.lastError}</p> : null}
          <form method="post" action={action}>
            <input type="hidden" name="action" value="card" />
            {page.testCards.map((card, i) => (
              <label key={card.id} style={{ display: "block" }}>
                <input type="radio" name="payment_method" value={card.id} defaultChecked={i === 0} />{" "}
                {card.label}
              </label>
            ))}
            <button type="submit">Pay</button>
          </form>
        </section>
      )}
    </>
  );
}
