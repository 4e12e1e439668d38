import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

import { getStoreOrThrow } from "./get-store-or-throw";

// Operator command (admin set-stripe-keys): a store's Stripe secret key (card charges), the signing secret of its
// Stripe webhook endpoint (/s/<slug>/stripe/webhook), and the publishable key Stripe.js uses on the hosted payment
// page. Live keys serve a live store; test keys put a test-mode store on Stripe's own test mode
// (lib/payments/card/stripe-account.ts); a test-mode store without them uses the sandbox PSP.

const SECRET_KEY = /^(sk|rk)_(live|test)_[A-Za-z0-9]{8,}$/;
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=]{8,}$/;
/** Publishable key for Stripe.js on the hosted payment page (public by design, never the secret key). */
const PUBLISHABLE_KEY = /^pk_(live|test)_[A-Za-z0-9]{8,}$/;

/** Sets whichever of the three is given ("" clears it). @throws AppError store_not_found, invalid_request */
export const setStripeKeys = async (
  slug: string,
  {
    secretKey,
    webhookSecret,
    publishableKey,
  }: { secretKey?: string; webhookSecret?: string; publishableKey?: string },
): Promise<void> => {
  const store = await getStoreOrThrow(slug);
  if (secretKey === undefined && webhookSecret === undefined && publishableKey === undefined) {
    throw new AppError("invalid_request", "Give --secret-key, --webhook-secret and/or --publishable-key");
  }
  if (secretKey && !SECRET_KEY.test(secretKey)) {
    throw new AppError(
      "invalid_request",
      "The Stripe secret key must look like sk_live_… or sk_test_… (or rk_…)",
    );
  }
  if (webhookSecret && !WEBHOOK_SECRET.test(webhookSecret)) {
    throw new AppError("invalid_request", "The Stripe webhook signing secret must look like whsec_…");
  }
  if (publishableKey && !PUBLISHABLE_KEY.test(publishableKey)) {
    throw new AppError(
      "invalid_request",
      "The Stripe publishable key must look like pk_live_… (or pk_test_…)",
    );
  }
  const db = await getDb();
  await db.store.update({
    where: { id: store.id },
    data: {
      ...(secretKey !== undefined ? { stripeSecretKey: secretKey || null } : {}),
      ...(webhookSecret !== undefined ? { stripeWebhookSecret: webhookSecret || null } : {}),
      ...(publishableKey !== undefined ? { stripePublishableKey: publishableKey || null } : {}),
    },
  });
};
