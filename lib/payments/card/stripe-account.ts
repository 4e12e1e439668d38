import { openStoreSecret } from "@/lib/credentials/store-secrets";
import type { Store } from "@/lib/generated/prisma/client";

// Which Stripe account a store's card payments go to. A live store uses its own keys against Stripe (or the
// stripe-mock-style server STRIPE_API_URL names). A test-mode store that the merchant gave Stripe *test* keys
// (sk_test_… / rk_test_…) uses Stripe's own test mode with them: real Stripe.js, real webhooks signed with the
// store's signing secret, no money moved. A test-mode store without test keys uses the local sandbox
// (sandbox/stripe/, STRIPE_SANDBOX_URL): the offline demo and the tests. A live key on a test-mode store is never
// used: a store in test mode must not be able to move real money. The secret key and the webhook signing secret
// are stored sealed (lib/credentials/store-secrets.ts) and opened here, the one place card payments read them.

export type StripeAccount =
  | { kind: "sandbox" }
  | { kind: "stripe"; secretKey: string | null; webhookSecret: string | null; livemode: boolean };

const TEST_SECRET_KEY = /^(sk|rk)_test_/;

export const stripeAccountOf = (store: Store): StripeAccount => {
  const secretKey = openStoreSecret(store.id, "stripe_secret_key", store.stripeSecretKey);
  const webhookSecret = openStoreSecret(store.id, "stripe_webhook_secret", store.stripeWebhookSecret);
  if (store.mode === "live") return { kind: "stripe", secretKey, webhookSecret, livemode: true };
  if (secretKey && TEST_SECRET_KEY.test(secretKey)) {
    return { kind: "stripe", secretKey, webhookSecret, livemode: false };
  }
  return { kind: "sandbox" };
};
