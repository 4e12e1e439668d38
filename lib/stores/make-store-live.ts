import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { openStoreSecret } from "@/lib/credentials/store-secrets";
import type { Store } from "@/lib/generated/prisma/client";

import { getStoreOrThrow } from "./get-store-or-throw";

// Operator command (admin make-store-live): the one way a store leaves test mode. Stores are created in test mode
// (sandbox payments, local agents allowed outside production); a live store charges real cards and pays out to a
// real wallet, so it must have what each of its enabled rails needs before the switch — otherwise buyers would
// meet a store that advertises a rail it cannot complete.

/** What `store` still lacks to go live, one sentence each (empty: ready). */
export const liveRequirementsMissing = (store: Store): string[] => {
  const missing: string[] = [];
  if (!store.cardEnabled && !store.cryptoEnabled) {
    missing.push("a payment rail: neither card nor crypto payments are enabled");
  }
  if (store.cardEnabled) {
    // stored sealed (lib/credentials/store-secrets.ts)
    const secretKey = openStoreSecret(store.id, "stripe_secret_key", store.stripeSecretKey);
    if (!secretKey || !/^(sk|rk)_live_/.test(secretKey)) {
      missing.push(
        `a live Stripe secret key${secretKey ? " (it has a test key)" : ""} ` +
          "(npm run admin -- set-stripe-keys --store <slug> --secret-key sk_live_…)",
      );
    }
    if (!store.stripePublishableKey || !store.stripePublishableKey.startsWith("pk_live_")) {
      missing.push(
        `a live Stripe publishable key${store.stripePublishableKey ? " (it has a test key)" : ""} ` +
          "(npm run admin -- set-stripe-keys --store <slug> --publishable-key pk_live_…)",
      );
    }
  }
  if (store.cryptoEnabled && !store.suiRecipient) {
    missing.push(
      "a Sui payout address for crypto payments (npm run admin -- set-crypto --store <slug> --payout-address 0x…)",
    );
  }
  return missing;
};

/**
 * Switches a test-mode store to live once its live requirements are met; a live store stays live.
 * @throws AppError store_not_found, invalid_request (naming everything missing; the store stays in test mode)
 */
export const makeStoreLive = async (slug: string): Promise<{ store: Store; alreadyLive: boolean }> => {
  const store = await getStoreOrThrow(slug);
  if (store.mode === "live") return { store, alreadyLive: true };
  const missing = liveRequirementsMissing(store);
  if (missing.length > 0) {
    throw new AppError(
      "invalid_request",
      `Store ${slug} cannot go live yet; it needs ${missing.join("; and ")}. It stays in test mode.`,
    );
  }
  const db = await getDb();
  // Only a store that is still in test mode switches (two operators at once: one switch, no error for either).
  await db.store.updateMany({ where: { id: store.id, mode: "test" }, data: { mode: "live" } });
  return { store: await db.store.findUniqueOrThrow({ where: { id: store.id } }), alreadyLive: false };
};
