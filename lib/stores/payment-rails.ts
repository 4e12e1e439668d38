import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import {
  closeOwedBack,
  listStoreOwedBack,
  owedAmountsOf,
  type OwedAmount,
} from "@/lib/payments/crypto/owed-back";

import { cryptoSettingsOf } from "./crypto-settings";
import { stripeKeysViewOf } from "./set-stripe-keys";

// A store's payment rails as the merchant sees them (the admin's payments page and the merchant REST API): the
// card keys (never a secret, only its last four), the crypto settings, and the crypto owed back to buyers. The
// rules live where they always did (set-stripe-keys.ts, crypto-settings.ts, payments/crypto/owed-back.ts).

/** The wire view of a store's rails, minor units and base units as strings. */
export const paymentRailsOf = (store: Store) => {
  const crypto = cryptoSettingsOf(store);
  const card = stripeKeysViewOf(store);
  return {
    mode: store.mode,
    card: {
      enabled: store.cardEnabled,
      stripe_secret_key_last4: card.secretKeyLast4,
      stripe_webhook_secret_last4: card.webhookSecretLast4,
      stripe_publishable_key: card.publishableKey,
    },
    crypto: {
      enabled: crypto.enabled,
      network: crypto.network,
      live_network: crypto.liveNetwork,
      accepted_coins: crypto.acceptedCoins.map((c) => c.symbol),
      payout_address: crypto.payoutAddress,
    },
  };
};

export type OwedBackWire = {
  id: string;
  status: string;
  checkout_id: string;
  buyer_address: string;
  payment_digest: string;
  amounts: OwedAmount[];
  reason: string;
  refund_digest: string | null;
  created_at: string;
};

const owedBackToWire = (r: Awaited<ReturnType<typeof listStoreOwedBack>>[number]): OwedBackWire => ({
  id: r.id,
  status: r.status,
  checkout_id: r.checkoutId,
  buyer_address: r.buyerAddress,
  payment_digest: r.paymentDigest,
  amounts: owedAmountsOf(r),
  reason: r.reason,
  refund_digest: r.refundDigest,
  created_at: r.createdAt.toISOString(),
});

/** Open (or every) record of money owed back in crypto by `store`, oldest first. */
export const owedBackOfStore = async (store: Store, { all = false } = {}): Promise<OwedBackWire[]> =>
  (await listStoreOwedBack(await getDb(), store.id, { all })).map(owedBackToWire);

export const CloseOwedBackSchema = z.strictObject({
  id: z.string().trim().min(1, "Which record").max(200),
  refund_digest: z.string().trim().min(1, "Paste the refund transaction's digest").max(200),
});

/**
 * Closes a record with the refund transaction's digest (verified on the chain by closeOwedBack).
 * @throws AppError not_found, invalid_request, conflict, payment_provider_error
 */
export const closeOwedBackOfStore = async (
  store: Store,
  input: z.infer<typeof CloseOwedBackSchema>,
): Promise<OwedBackWire> =>
  owedBackToWire(
    await closeOwedBack(await getDb(), store, { id: input.id, refundDigest: input.refund_digest }),
  );
