import type { Store } from "@/lib/generated/prisma/client";

// The rail port (issue #5): what completion needs from a payment rail, whatever the provider. The card rail
// (Stripe) implements it now; the crypto rail comes in its own issue.

export type ChargeRequest = {
  store: Store;
  checkoutId: string;
  /** Live re-priced total, integer minor units. */
  amount: number;
  /** ISO 4217, as stored on the checkout. */
  currency: string;
  /** Payment-method token from the instrument's credential; null → the buyer pays on the hosted page. */
  token: string | null;
  /** Forwarded to the provider: derived from the checkout and attempt, never from the request. */
  idempotencyKey: string;
  /** Where the provider sends the buyer back after a 3-DS redirect (our hosted payment page). */
  returnUrl: string;
};

export type ChargeOutcome =
  | { kind: "succeeded"; paymentRef: string }
  /** 3-DS (or another buyer step) is required: the hosted page finishes it. */
  | { kind: "requires_action"; paymentRef: string }
  /** No payment method yet (no token sent): the hosted page collects one. */
  | { kind: "requires_payment_method"; paymentRef: string }
  | { kind: "declined"; paymentRef: string | null; reason: string };

export type RefundOutcome = { kind: "succeeded"; refundRef: string } | { kind: "refused"; reason: string };

/** canceled: the provider will never charge it; not_cancelable: it may still succeed (watched by the sweep). */
export type CancelOutcome = { kind: "canceled" } | { kind: "not_cancelable"; reason: string };

export type PaymentRail = {
  /**
   * Cancels a payment that has not succeeded (a superseded attempt). A provider that cannot cancel it now answers
   * not_cancelable; a transient failure throws.
   */
  cancel: (store: Store, paymentRef: string) => Promise<CancelOutcome>;
  charge: (request: ChargeRequest) => Promise<ChargeOutcome>;
  /** The provider's current state of a payment (reconciliation, hosted page return, webhooks). */
  retrieve: (store: Store, paymentRef: string) => Promise<ChargeOutcome>;
  /**
   * Refunds a succeeded payment, in full or `amount` minor units of it. `refused` is the provider's definite no
   * (already refunded, over the captured amount); a transient failure throws (retry with the same key).
   */
  refund: (
    store: Store,
    paymentRef: string,
    idempotencyKey: string,
    amount?: number,
  ) => Promise<RefundOutcome>;
  /** Confirms an existing payment with a payment method the buyer entered on the hosted page. */
  confirm: (store: Store, paymentRef: string, token: string, returnUrl: string) => Promise<ChargeOutcome>;
  /**
   * What the buyer's browser needs to confirm the payment itself (live hosted page: Stripe.js Payment Element):
   * the payment's client secret and the store's publishable key. Never the secret key.
   * @throws AppError payment_provider_error (provider unreachable, store not configured)
   */
  clientSession: (store: Store, paymentRef: string) => Promise<ClientSession>;
};

export type ClientSession = { clientSecret: string; publishableKey: string };
