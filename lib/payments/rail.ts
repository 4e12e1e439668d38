import type { Store } from "@/lib/generated/prisma/client";

// The rail port (STYLE.md §7, DECISIONS B12): what completion, the finisher, the sweep and order refunds need
// from a payment rail, whatever moves the money. Rail-neutral on purpose: the card rail (Stripe) implements it
// with PaymentIntents; the crypto rail (its own issue) implements the same calls with a prepared, unsigned
// transaction (start), the digest of the transaction the buyer signed (settle), the chain's view of that digest
// (retrieve), and a transfer back (refund). One provider payment = one attempt (lib/payments/attempts.ts).

/** What the agent (or the buyer's page) hands over to settle an attempt. */
export type RailCredential =
  /** svc.card: a payment-method token (Stripe pm_…). */
  | { type: "card_token"; token: string }
  /** svc.crypto: the digest of the prepared transaction the buyer's wallet signed and submitted. */
  | { type: "transaction_digest"; digest: string };

export type StartAttemptRequest = {
  store: Store;
  checkoutId: string;
  /** Live re-priced total, integer minor units. */
  amount: number;
  /** ISO 4217, as stored on the checkout. */
  currency: string;
  /** Settle at once with this credential; null → prepare only (the buyer step finishes it). */
  credential: RailCredential | null;
  /** Forwarded to the provider: derived from the checkout and attempt, never from the request. */
  idempotencyKey: string;
  /** Where the provider sends the buyer back after a redirect (our hosted payment page). */
  returnUrl: string;
  /** Crypto: who pays (the buyer's wallet) and the coin they chose (null/"auto": the service funds it). */
  payer?: { address: string; coin?: string | null };
};

/** What the buyer paid with, as a receipt shows it (card: brand and last four digits; never the number). */
export type PaymentMethodSummary = { kind: "card"; brand: string; last4: string };

/** The provider's state of one attempt. `paymentRef`: PaymentIntent id, transaction digest. */
export type AttemptOutcome =
  | { kind: "succeeded"; paymentRef: string; method?: PaymentMethodSummary }
  /** The buyer must act (3-DS; crypto: sign the prepared transaction): the buyer step finishes it. */
  | { kind: "requires_action"; paymentRef: string }
  /** No payment method yet (no credential sent): the hosted page collects one. */
  | { kind: "requires_payment_method"; paymentRef: string }
  /**
   * The provider cannot tell yet (crypto: the node does not know the digest, it is not checkpointed yet, or the
   * node is down). Not terminal: a retry, the sweep or the buyer's page finishes it; never an invitation to pay
   * again. `submitted`: what the agent handed over (the digest), echoed back so it can retry with it.
   */
  | { kind: "processing"; paymentRef: string; submitted?: string }
  | { kind: "declined"; paymentRef: string | null; reason: string };

/** canceled: the provider will never charge it; not_cancelable: it may still succeed (watched by the sweep). */
export type CancelOutcome = { kind: "canceled" } | { kind: "not_cancelable"; reason: string };

export type RefundOutcome = { kind: "succeeded"; refundRef: string } | { kind: "refused"; reason: string };

/** What the buyer's browser or wallet needs for the buyer step (the continue_url page renders it). */
export type BuyerStep =
  /** Card, live mode: Stripe.js confirms with the client secret and the store's publishable key (never the secret key). */
  | { kind: "card_confirmation"; clientSecret: string; publishableKey: string }
  /** Crypto: the unsigned transaction (base64 BCS bytes) the wallet signs. */
  | { kind: "sign_transaction"; transactionBytes: string };

export type PaymentRail = {
  /** The inner handler id of the rail (svc.card, svc.crypto). */
  id: string;
  /** Starts an attempt for the checkout's amount (card: a PaymentIntent; crypto: a prepared transaction). */
  start: (request: StartAttemptRequest) => Promise<AttemptOutcome>;
  /** Settles an existing attempt with a credential (card: confirm with a token; crypto: verify the digest). */
  settle: (
    store: Store,
    paymentRef: string,
    credential: RailCredential,
    returnUrl: string,
  ) => Promise<AttemptOutcome>;
  /** The provider's current state of an attempt (reconciliation, hosted page return, webhooks). */
  retrieve: (store: Store, paymentRef: string) => Promise<AttemptOutcome>;
  /**
   * Cancels an attempt that has not succeeded (a superseded one). A provider that cannot cancel it now answers
   * not_cancelable; a transient failure throws.
   */
  cancel: (store: Store, paymentRef: string) => Promise<CancelOutcome>;
  /**
   * Refunds a succeeded attempt, in full or `amount` minor units of it, with a stable idempotency key.
   * `refused` is the provider's definite no (already refunded, over the captured amount); a transient failure
   * throws (retry with the same key).
   */
  refund: (
    store: Store,
    paymentRef: string,
    idempotencyKey: string,
    amount?: number,
  ) => Promise<RefundOutcome>;
  /**
   * What the buyer needs to finish the attempt themselves (continue_url page).
   * @throws AppError payment_provider_error (provider unreachable, store not configured)
   */
  buyerStep: (store: Store, paymentRef: string) => Promise<BuyerStep>;
};

// Card-rail names kept for its callers (a PaymentIntent is "charged" and "confirmed").
export type ChargeOutcome = AttemptOutcome;
export type ChargeRequest = Omit<StartAttemptRequest, "credential"> & {
  /** Payment-method token from the instrument's credential; null → the buyer pays on the hosted page. */
  token: string | null;
};
