import "server-only";

import Stripe from "stripe";

import { getDb } from "@/lib/config/db";
import { placeOrder } from "@/lib/orders/place-order";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { SANDBOX_SECRET_KEY } from "./stripe-sandbox";

// Inbound Stripe webhooks (issue #5 §2) at POST /s/<slug>/stripe/webhook. The signature is verified with
// stripe.webhooks.constructEvent over the raw body before anything else is read; only PaymentIntent outcomes
// are handled; each event id is handled once (stripe_webhook_events). payment_intent.succeeded finishes the
// order of a checkout whose charge succeeded outside a completion call (3-DS on Stripe's page, a lost
// response, a crash): placeOrder is idempotent, so a late or repeated event never places a second order.

/** The sandbox's webhook signing secret (test-mode stores). */
export const SANDBOX_WEBHOOK_SECRET = "whsec_sandbox";

const HANDLED = new Set(["payment_intent.succeeded", "payment_intent.payment_failed"]);

export type WebhookAnswer = { status: number; body: Record<string, unknown> };

export const handleStripeWebhook = async (
  slug: string,
  rawBody: string,
  signature: string | null,
  now = new Date(),
): Promise<WebhookAnswer> => {
  const store = await getStoreOrThrow(slug).catch(() => null);
  if (!store) return { status: 404, body: { error: "unknown store" } };
  const secret = store.mode === "test" ? SANDBOX_WEBHOOK_SECRET : store.stripeWebhookSecret;
  if (!secret) return { status: 400, body: { error: "no Stripe webhook secret configured for this store" } };
  let event: Stripe.Event;
  try {
    const stripe = new Stripe(store.stripeSecretKey ?? SANDBOX_SECRET_KEY);
    event = stripe.webhooks.constructEvent(rawBody, signature ?? "", secret);
  } catch {
    return { status: 400, body: { error: "invalid Stripe-Signature" } };
  }
  const db = await getDb();
  if (await db.stripeWebhookEvent.findUnique({ where: { id: event.id } })) {
    return { status: 200, body: { received: true, duplicate: true } };
  }
  if (HANDLED.has(event.type)) {
    const intent = event.data.object as Stripe.PaymentIntent;
    const payment = await db.cardPayment.findFirst({
      where: { storeId: store.id, paymentIntentId: intent.id },
    });
    // a refunded payment (its order could not be placed) is never turned into an order by a late event
    if (payment?.status === "refunded") {
      // nothing to do
    } else if (payment && event.type === "payment_intent.succeeded") {
      await db.cardPayment.update({
        where: { checkoutId: payment.checkoutId },
        data: { status: "succeeded" },
      });
      await placeOrder(db, {
        checkoutId: payment.checkoutId,
        storeId: store.id,
        handlerId: RAIL_HANDLER_IDS.card,
        paymentRef: intent.id,
        now,
      });
    } else if (payment) {
      await db.cardPayment.updateMany({
        where: { checkoutId: payment.checkoutId, status: { not: "succeeded" } },
        data: { status: "declined" },
      });
    }
  }
  await db.stripeWebhookEvent.createMany({
    data: [{ id: event.id, type: event.type }],
    skipDuplicates: true,
  });
  return { status: 200, body: { received: true } };
};
