import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { sealStoreSecret, storeSecretHint } from "@/lib/credentials/store-secrets";
import type { Store } from "@/lib/generated/prisma/client";

import { getStoreOrThrow } from "./get-store-or-throw";

// Operator command (admin set-stripe-keys): a store's Stripe secret key (card charges), the signing secret of its
// Stripe webhook endpoint (/s/<slug>/stripe/webhook), and the publishable key Stripe.js uses on the hosted payment
// page. Live keys serve a live store; test keys put a test-mode store on Stripe's own test mode
// (lib/payments/card/stripe-account.ts); a test-mode store without them uses the sandbox PSP. The secret key and
// the signing secret are stored sealed (lib/credentials/store-secrets.ts) and never shown back but for their last
// four characters.

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
      { path: "$.secret_key" },
    );
  }
  if (webhookSecret && !WEBHOOK_SECRET.test(webhookSecret)) {
    throw new AppError("invalid_request", "The Stripe webhook signing secret must look like whsec_…", {
      path: "$.webhook_secret",
    });
  }
  if (publishableKey && !PUBLISHABLE_KEY.test(publishableKey)) {
    throw new AppError(
      "invalid_request",
      "The Stripe publishable key must look like pk_live_… (or pk_test_…)",
      { path: "$.publishable_key" },
    );
  }
  const db = await getDb();
  await db.store.update({
    where: { id: store.id },
    data: {
      ...(secretKey !== undefined
        ? { stripeSecretKey: secretKey ? sealStoreSecret(store.id, "stripe_secret_key", secretKey) : null }
        : {}),
      ...(webhookSecret !== undefined
        ? {
            stripeWebhookSecret: webhookSecret
              ? sealStoreSecret(store.id, "stripe_webhook_secret", webhookSecret)
              : null,
          }
        : {}),
      ...(publishableKey !== undefined ? { stripePublishableKey: publishableKey || null } : {}),
    },
  });
};

export type StripeKeysView = {
  /** Last four characters of the secret key, or null when none is set. */
  secretKeyLast4: string | null;
  webhookSecretLast4: string | null;
  /** Public by design: shown whole. */
  publishableKey: string | null;
};

/** What the admin shows of a store's Stripe keys: never a secret, only its last four characters. */
export const stripeKeysViewOf = (store: Store): StripeKeysView => ({
  secretKeyLast4: storeSecretHint(store.id, "stripe_secret_key", store.stripeSecretKey),
  webhookSecretLast4: storeSecretHint(store.id, "stripe_webhook_secret", store.stripeWebhookSecret),
  publishableKey: store.stripePublishableKey,
});
