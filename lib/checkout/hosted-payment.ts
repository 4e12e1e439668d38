import "server-only";

import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { placeOrder } from "@/lib/orders/place-order";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import { answerSandboxChallenge, SANDBOX_PAYMENT_METHODS } from "@/lib/payments/card/stripe-sandbox";
import type { ChargeOutcome } from "@/lib/payments/rail";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { continueUrlOf, draftOf } from "./checkout-record";
import { priceCheckout } from "./price-checkout";

// The hosted payment page behind a checkout's continue_url (issue #5 §3): the buyer finishes a card payment the
// agent could not (3-DS required, or no card token). The continue token is the capability, as with cart links.
// Test-mode stores run the sandbox card form and 3-DS challenge served by us; live stores would run Stripe's
// Payment Element (not in this build: the page says so). Once the order is placed the token is dropped
// (placeOrder clears it), so the link stops working.

const TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

export type PaymentPage = {
  storeName: string;
  mode: "test" | "live";
  currency: string;
  lines: { title: string; quantity: number; amountMinor: number }[];
  totalMinor: number;
  /** challenge: a 3-DS confirmation is pending; card: the buyer enters (picks) a card. */
  step: "challenge" | "card";
  lastError: string | null;
  testCards: { id: string; label: string }[];
};

const findSession = async (slug: string, token: string) => {
  if (!TOKEN.test(token)) return null;
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
  const priced = await priceCheckout(db, session.store, draftOf(session), { now, frozen: true });
  return {
    storeName: session.store.name,
    mode: session.store.mode,
    currency: session.currency,
    lines: priced.lines.map((l) => ({
      title:
        l.variant.title === l.variant.product.title
          ? l.variant.title
          : `${l.variant.product.title} — ${l.variant.title}`,
      quantity: l.quantity,
      amountMinor: l.amount,
    })),
    totalMinor: payment.amount,
    step: payment.status === "requires_action" ? "challenge" : "card",
    lastError: payment.status === "declined" ? "The last card was declined: try another card." : null,
    testCards: [
      { id: SANDBOX_PAYMENT_METHODS.succeeds, label: "Visa 4242 (succeeds)" },
      { id: SANDBOX_PAYMENT_METHODS.requires3ds, label: "Visa 3155 (3-D Secure required)" },
      { id: SANDBOX_PAYMENT_METHODS.declined, label: "Visa 0002 (declined)" },
    ],
  };
};

export type PaymentAction = { action: "approve" | "fail" } | { action: "card"; paymentMethod: string };
export type PaymentResult = "paid" | "challenge" | "declined" | "gone" | "unavailable";

/**
 * The buyer's step on the hosted page: answer the sandbox 3-DS challenge or pay with a (test) card. A succeeded
 * payment places the order (idempotent); a provider state that already succeeded is finished without a new
 * confirmation, which also reconciles a payment whose order was not written yet.
 */
export const payHostedCheckout = async (
  slug: string,
  token: string,
  step: PaymentAction,
  now = new Date(),
): Promise<PaymentResult> => {
  const found = await findSession(slug, token);
  if (!found) return "gone";
  const { db, session, paymentIntentId } = found;
  if (session.store.mode !== "test") return "unavailable";
  let outcome: ChargeOutcome = await stripeCardRail.retrieve(session.store, paymentIntentId);
  if (outcome.kind !== "succeeded") {
    if (step.action === "card") {
      outcome = await stripeCardRail.confirm(
        session.store,
        paymentIntentId,
        step.paymentMethod,
        continueUrlOf(session.store, getBaseUrl(), token),
      );
    } else if (outcome.kind === "requires_action") {
      await answerSandboxChallenge(paymentIntentId, step.action === "approve");
      outcome = await stripeCardRail.retrieve(session.store, paymentIntentId);
    }
  }
  await db.cardPayment.update({
    where: { checkoutId: session.id },
    data: { status: outcome.kind === "declined" ? "declined" : outcome.kind },
  });
  if (outcome.kind === "succeeded") {
    await placeOrder(db, {
      checkoutId: session.id,
      storeId: session.storeId,
      handlerId: RAIL_HANDLER_IDS.card,
      paymentRef: paymentIntentId,
      now,
    });
    return "paid";
  }
  return outcome.kind === "requires_action" ? "challenge" : "declined";
};
