import "server-only";

import { itemTitle } from "@/lib/catalog/item-title";
import { finishPayment } from "@/lib/checkout/completion/finish-payment";
import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";
import { logger } from "@/lib/core/log";
import { updateAttemptState } from "@/lib/payments/attempts";
import { answerSandboxChallenge, SANDBOX_PAYMENT_METHODS } from "@/lib/payments/card/sandbox-client";
import { stripeAccountOf } from "@/lib/payments/card/stripe-account";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import type { ChargeOutcome } from "@/lib/payments/rail";

import { continueUrlOf, draftOf, PAGE_TOKEN } from "./checkout-record";
import { firstImageOf, paymentPageDetailsOf, type PaymentPageDetails } from "./payment-page-details";
import { priceCheckout } from "./price-checkout";

// The hosted payment page behind a checkout's continue_url: the buyer finishes a card payment the
// agent could not (3-DS required, or no card token). The continue token is the capability, as with cart links.
// Stores on the sandbox run the sandbox card form and 3-DS challenge served by us; stores on Stripe (live, or
// test mode with Stripe test keys) run Stripe's Payment Element in the buyer's browser (Stripe.js confirms the PaymentIntent with its client secret and the store's
// publishable key; 3-DS may redirect back here with ?payment_intent=…). Either way the server then trusts only
// the provider's state: one "retrieve and finish" (settle below) records it and places the order on success.
// Once the order is placed the token is dropped (placeOrder keeps only its hash): the link then shows the receipt.

export type PaymentPage = {
  storeName: string;
  /** The store's country: the locale money and dates are shown in when the viewer's is unknown. */
  storeCountry: string;
  mode: "test" | "live";
  currency: string;
  lines: { title: string; quantity: number; amountMinor: number; imageUrl: string | null }[];
  /** The receipt email, ship-to address and shipping option of the checkout. */
  details: PaymentPageDetails;
  totalMinor: number;
  /** How the total was reached, as charged (subtotal, discount, fulfillment, tax…; minor units, signed). */
  breakdown: { type: string; amount: number; display_text?: string }[];
  /** challenge: a 3-DS confirmation is pending; card: the buyer enters (picks) a card. */
  step: "challenge" | "card";
  lastError: string | null;
  testCards: { id: string; label: string }[];
  /** Live mode only: what Stripe.js needs in the browser, or why the card step cannot run. */
  live: LiveCard | null;
};

export type LiveCard =
  | { status: "ready"; publishableKey: string; clientSecret: string; returnUrl: string }
  /** The store lacks its Stripe keys (admin set-stripe-keys), or the provider could not be reached. */
  | { status: "not_configured" | "unavailable"; message: string };

type Found = NonNullable<Awaited<ReturnType<typeof findSession>>>;

const liveCardOf = async ({ session, paymentIntentId }: Found, token: string): Promise<LiveCard> => {
  const { store } = session;
  if (!store.stripeSecretKey || !store.stripePublishableKey) {
    return {
      status: "not_configured",
      message: "Card payments are not configured for this store yet. Please contact the merchant.",
    };
  }
  try {
    const step = await stripeCardRail.buyerStep(store, paymentIntentId);
    if (step.kind !== "card_confirmation") throw new Error(`unexpected buyer step ${step.kind}`);
    const { clientSecret, publishableKey } = step;
    return {
      status: "ready",
      publishableKey,
      clientSecret,
      returnUrl: continueUrlOf(store, getBaseUrl(), token),
    };
  } catch (error) {
    logger().error({ checkout_id: session.id }, `hosted payment: ${toAppError(error).message}`);
    return {
      status: "unavailable",
      message: "The card payment service could not be reached. Please reload this page in a moment.",
    };
  }
};

const findSession = async (slug: string, token: string) => {
  if (!PAGE_TOKEN.test(token)) return null;
  const db = await getDb();
  const session = await db.checkoutSession.findFirst({
    where: { continueToken: token, status: "requires_escalation", store: { slug } },
    include: { store: true, lineItems: { orderBy: { position: "asc" } } },
  });
  if (!session) return null;
  const payment = await db.cardPayment.findUnique({ where: { checkoutId: session.id } });
  return payment?.paymentIntentId ? { db, session, payment, paymentIntentId: payment.paymentIntentId } : null;
};

/** What the page shows, or null when the link is unknown or no longer active (completed, canceled). */
export const getPaymentPage = async (
  slug: string,
  token: string,
  now = new Date(),
): Promise<PaymentPage | null> => {
  const found = await findSession(slug, token);
  if (!found) return null;
  const { db, session, payment } = found;
  // Stripe.js whenever the store's payments go to Stripe (live, or Stripe's test mode with test keys)
  const live = stripeAccountOf(session.store).kind === "stripe" ? await liveCardOf(found, token) : null;
  const priced = await priceCheckout(db, session.store, draftOf(session), { now, frozen: true });
  return {
    storeName: session.store.name,
    storeCountry: session.store.country,
    mode: session.store.mode,
    currency: session.currency,
    lines: priced.lines.map((l) => ({
      title: itemTitle(l.variant.product.title, l.variant.title),
      quantity: l.quantity,
      amountMinor: l.amount,
      imageUrl: firstImageOf(l.variant.product.media),
    })),
    details: paymentPageDetailsOf(session, priced.selectedOption),
    totalMinor: payment.amount,
    breakdown: ((session.totals ?? []) as PaymentPage["breakdown"]).filter((t) => t.type !== "total"),
    step: payment.status === "requires_action" ? "challenge" : "card",
    lastError: payment.status === "declined" ? "The last card was declined: try another card." : null,
    testCards: [
      { id: SANDBOX_PAYMENT_METHODS.succeeds, label: "Visa 4242 (succeeds)" },
      { id: SANDBOX_PAYMENT_METHODS.requires3ds, label: "Visa 3220 (3-D Secure required)" },
      { id: SANDBOX_PAYMENT_METHODS.declined, label: "Visa 0002 (declined)" },
    ],
    live,
  };
};

export type PaymentAction =
  | { action: "approve" | "fail" }
  | { action: "card"; paymentMethod: string }
  /** Live mode, after Stripe.js confirmed in the browser without a redirect: read the provider's state. */
  | { action: "refresh" };
/**
 * paid: order placed; refunded: the payment succeeded but the items sold out meanwhile, so it was given back
 * and the link closed; challenge: the bank still asks the buyer (3-DS); declined: try another card; open: no
 * payment attempted yet; gone: the link is not active; unavailable: this step does not exist in the store's
 * mode; mismatch: a PaymentIntent that is not this checkout's; provider_error: the provider failed.
 */
export type PaymentResult =
  | "paid"
  | "refunded"
  | "challenge"
  | "declined"
  | "open"
  | "gone"
  | "unavailable"
  | "mismatch"
  | "provider_error";

/**
 * Retrieve and finish, shared by both modes: read the PaymentIntent's state from the provider (never from the
 * browser), record it, and place the order when it succeeded (placeOrder is idempotent, so a webhook or a
 * retried completion that got there first changes nothing). `before` may act on a payment that has not
 * succeeded (test mode: confirm a sandbox card, answer the sandbox challenge) and returns the new state.
 */
const settle = async (
  found: Found,
  now: Date,
  before?: (current: ChargeOutcome) => Promise<ChargeOutcome>,
): Promise<PaymentResult> => {
  const { db, session, paymentIntentId } = found;
  let outcome = await stripeCardRail.retrieve(session.store, paymentIntentId);
  if (outcome.kind !== "succeeded" && before) outcome = await before(outcome);
  if (outcome.kind !== "succeeded") {
    await updateAttemptState(db, paymentIntentId, outcome.kind);
    await db.cardPayment.updateMany({
      where: { checkoutId: session.id, status: { notIn: ["refunded", "refunding"] } },
      data: { status: outcome.kind === "declined" ? "declined" : outcome.kind },
    });
  }
  switch (outcome.kind) {
    case "succeeded": {
      // the webhook's and the sweep's finisher: places the order, or (stock gone meanwhile) refunds once
      const finished = await finishPayment(db, session.store, session.id, paymentIntentId, {
        now,
        method: outcome.method,
      });
      return finished.result === "order_placed" ? "paid" : "refunded";
    }
    case "requires_action":
      return "challenge";
    case "declined":
      return "declined";
    default:
      return "open";
  }
};

const providerFailure = (error: unknown): PaymentResult => {
  const appError = toAppError(error);
  if (appError.code !== "payment_provider_error") throw error;
  logger().error(`hosted payment: ${appError.message}`);
  return "provider_error";
};

/**
 * The buyer's step on the hosted page. Test mode: answer the sandbox 3-DS challenge or pay with a (test) card.
 * Both modes: `refresh` reads the provider's state (live mode: after Stripe.js confirmed in the browser). A
 * payment that already succeeded is finished without a new confirmation, which also reconciles a payment whose
 * order was not written yet.
 */
export const payHostedCheckout = async (
  slug: string,
  token: string,
  step: PaymentAction,
  now = new Date(),
): Promise<PaymentResult> => {
  const found = await findSession(slug, token);
  if (!found) return "gone";
  const { session, paymentIntentId } = found;
  if (step.action === "refresh") return settle(found, now).catch(providerFailure);
  // the sandbox's card form and challenge exist only for stores on the sandbox
  if (stripeAccountOf(session.store).kind !== "sandbox") return "unavailable";
  return settle(found, now, async (current) => {
    if (step.action === "card") {
      try {
        return await stripeCardRail.confirm(
          session.store,
          paymentIntentId,
          step.paymentMethod,
          continueUrlOf(session.store, getBaseUrl(), token),
        );
      } catch (error) {
        // a double click posts the card twice: the other post's confirmation got there first, and the provider
        // refuses this one (the PaymentIntent is no longer awaiting a card). Its state is the answer: one charge.
        const now = await stripeCardRail.retrieve(session.store, paymentIntentId).catch(() => null);
        if (now && ["succeeded", "requires_action", "processing"].includes(now.kind)) return now;
        throw error;
      }
    }
    if (current.kind !== "requires_action") return current;
    await answerSandboxChallenge(paymentIntentId, step.action === "approve");
    return stripeCardRail.retrieve(session.store, paymentIntentId);
  }).catch(providerFailure);
};

const PAYMENT_INTENT = /^pi_[A-Za-z0-9_]{1,200}$/;

/**
 * The provider sent the buyer back to the page (Stripe's return_url after 3-DS, with ?payment_intent=…). The
 * query string is only a hint: the PaymentIntent must be the one recorded for this checkout (anything else is
 * refused as `mismatch` without asking the provider), and its state is read from the provider.
 */
export const returnFromProvider = async (
  slug: string,
  token: string,
  paymentIntent: string,
  now = new Date(),
): Promise<PaymentResult> => {
  const found = await findSession(slug, token);
  if (!found) return "gone";
  if (!PAYMENT_INTENT.test(paymentIntent) || paymentIntent !== found.paymentIntentId) return "mismatch";
  return settle(found, now).catch(providerFailure);
};
