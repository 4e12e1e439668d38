import "server-only";

import Stripe from "stripe";

import { getDb } from "@/lib/config/db";
import { execute, sql } from "@/lib/config/sql";
import { errorText, logger } from "@/lib/core/log";
import type { Store } from "@/lib/generated/prisma/client";
import { findAttempt, updateAttemptState } from "@/lib/payments/attempts";
import { SANDBOX_WEBHOOK_SECRET } from "@/lib/payments/card/sandbox-client";
import { stripeAccountOf } from "@/lib/payments/card/stripe-account";
import { stripeCardRail } from "@/lib/payments/card/stripe-adapter";
import type { PaymentMethodSummary } from "@/lib/payments/rail";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";

import { chargeSettled } from "./charges-under-way";
import { finishPayment } from "./finish-payment";

// Inbound Stripe webhooks at POST /s/<slug>/stripe/webhook. The signature is verified with
// stripe.webhooks.constructEvent over the raw body before anything else is read; each event id is claimed once
// (stripe_webhook_events) before it is handled, so a repeated or concurrent delivery is acknowledged as a
// duplicate, and a failed handling releases the claim and answers 500 so Stripe retries. Handled:
// payment_intent.succeeded finishes the order of a charge that succeeded outside a completion call (3-DS answered
// on Stripe's page, a lost response, a crash) — placeOrder is idempotent, so a late or repeated event never places
// a second order; payment_intent.payment_failed records the decline. payment_intent.requires_action and every
// other type are acknowledged (200) and ignored: the completion already escalated the checkout.

export { SANDBOX_WEBHOOK_SECRET };

export type WebhookAnswer = { status: number; body: Record<string, unknown> };

/**
 * The card behind a PaymentIntent for the receipt (brand, last four). Events never expand the payment method, so
 * it is read from the provider; when the provider cannot answer now the order is placed without it.
 */
const cardOf = async (store: Store, paymentIntentId: string): Promise<PaymentMethodSummary | undefined> => {
  try {
    const outcome = await stripeCardRail.retrieve(store, paymentIntentId);
    return outcome.kind === "succeeded" ? outcome.method : undefined;
  } catch (error) {
    logger().warn(`stripe webhook: card details of ${paymentIntentId}: ${errorText(error)}`);
    return undefined;
  }
};

const secretOf = (store: Store): string | null => {
  const account = stripeAccountOf(store);
  return account.kind === "sandbox" ? SANDBOX_WEBHOOK_SECRET : (account.webhookSecret ?? null);
};

/** The event, its signature verified over the raw body with the store's webhook secret; or why not. */
const eventOf = (
  store: Store,
  rawBody: string,
  signature: string | null,
): Stripe.Event | { error: string } => {
  const secret = secretOf(store);
  if (!secret) return { error: "no Stripe webhook secret configured for this store" };
  try {
    // the signature needs only the webhook secret: no client (and no API key) to build per event
    return Stripe.webhooks.constructEvent(rawBody, signature ?? "", secret);
  } catch {
    return { error: "invalid Stripe-Signature" };
  }
};

export const handleStripeWebhook = async (
  slug: string,
  rawBody: string,
  signature: string | null,
  now = new Date(),
): Promise<WebhookAnswer> => {
  // The store from the row cache (up to ROW_CACHE_TTL_MS old) checks the signature and acknowledges the usual
  // event, the success of a payment this process's completion has just placed its order with, which moves nothing.
  // Any other handling may move money (an order, a refund, a decline recorded): it reads the store fresh first and
  // checks the signature again when the fresh store's secret differs (lib/stores/get-store-or-throw.ts).
  const cached = await getStoreOrThrow(slug, { forRead: true }).catch(() => null);
  if (!cached) return { status: 404, body: { error: "unknown store" } };
  const event = eventOf(cached, rawBody, signature);
  if ("error" in event) return { status: 400, body: event };
  const db = await getDb();
  // Prisma's createMany with skipDuplicates in SQL (Prisma compiles createMany's plan again on every call:
  // docs/decisions.md "Plans Prisma can reuse"), sent without its client (every card payment's event sends it)
  const claimed = await execute(sql`
    INSERT INTO stripe_webhook_events (id, type, received_at) VALUES (${event.id}, ${event.type}, ${new Date()})
    ON CONFLICT DO NOTHING`);
  if (claimed === 0) return { status: 200, body: { received: true, duplicate: true } };
  try {
    if (event.type === "payment_intent.succeeded" || event.type === "payment_intent.payment_failed") {
      const intent = event.data.object;
      const succeeded = event.type === "payment_intent.succeeded";
      // the completion in this process that charged this payment is usually still finishing: wait for it (the
      // checkout the adapter named in the PaymentIntent's metadata); when it placed the order with this very
      // payment, the finisher would find that order and do nothing, so nothing is read or written
      const named = intent.metadata?.checkout_id;
      if (succeeded && named) {
        const { placed } = await chargeSettled(named);
        if (placed.some((p) => p.paymentRef === intent.id && p.storeId === cached.id)) {
          return { status: 200, body: { received: true } };
        }
      }
      const store = await getStoreOrThrow(slug);
      if (secretOf(store) !== secretOf(cached) && "error" in eventOf(store, rawBody, signature)) {
        await db.stripeWebhookEvent.deleteMany({ where: { id: event.id } });
        return { status: 400, body: { error: "invalid Stripe-Signature" } };
      }
      // the attempt of this PaymentIntent: a known one names its checkout, and the finisher takes this read as its
      // own (it decides on nothing older); a superseded attempt (its 3-DS answered after the agent paid with
      // another card) is known this way too
      const attempt = await findAttempt(intent.id, store.id);
      // the card payment by its recorded PaymentIntent; else (the process died right after Stripe answered, so
      // the id was never recorded) the first attempt of the checkout named in the PaymentIntent's metadata. A
      // success of a known attempt needs neither: the attempt names the checkout
      const payment =
        succeeded && attempt
          ? null
          : ((await db.cardPayment.findFirst({ where: { storeId: store.id, paymentIntentId: intent.id } })) ??
            (intent.metadata?.checkout_id
              ? await db.cardPayment.findFirst({
                  where: {
                    storeId: store.id,
                    checkoutId: intent.metadata.checkout_id,
                    paymentIntentId: null,
                  },
                })
              : null));
      const checkoutId =
        attempt?.checkoutId ??
        payment?.checkoutId ??
        (intent.metadata?.checkout_id
          ? (
              await db.checkoutSession.findFirst({
                where: { id: intent.metadata.checkout_id, storeId: store.id },
                select: { id: true },
              })
            )?.id
          : undefined);
      if (checkoutId && succeeded) {
        // the completion that charged this payment is usually still finishing here: it places the order with the
        // card it knows, and this finisher then only finds it (no call to the provider for the card); the read
        // above is older than what that completion wrote, so the finisher reads again
        const { waited } = await chargeSettled(checkoutId);
        // the one finisher: the order for the current payment, a full refund for any other success; a refunded
        // payment is never turned into an order by a late event
        await finishPayment(db, store, checkoutId, intent.id, {
          now,
          method: () => cardOf(store, intent.id),
          ...(attempt && !waited ? { attempt } : {}),
        });
      } else if (event.type === "payment_intent.payment_failed") {
        await updateAttemptState(db, intent.id, "declined");
        if (payment) {
          // recorded as a completion records a decline: the next attempt gets a new provider key (a retry with
          // the same card must not replay this attempt's answer); compare-and-set, so a repeat changes nothing
          await db.cardPayment.updateMany({
            where: {
              checkoutId: payment.checkoutId,
              paymentIntentId: payment.paymentIntentId,
              status: { notIn: ["succeeded", "refunding", "refunded", "declined"] },
            },
            data: { status: "declined", paymentIntentId: intent.id, attempt: { increment: 1 } },
          });
        }
      }
    }
  } catch (error) {
    await db.stripeWebhookEvent.deleteMany({ where: { id: event.id } });
    logger().error(
      {
        store: slug,
        event_id: event.id,
        stack: error instanceof Error && error.stack ? errorText(error.stack) : undefined,
      },
      `stripe webhook ${event.id} (${event.type}) for ${slug}: ${errorText(error)}`,
    );
    return { status: 500, body: { error: "the event could not be handled; retry" } };
  }
  return { status: 200, body: { received: true } };
};
