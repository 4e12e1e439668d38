import "server-only";

import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { stripeCardRail } from "./card/stripe-adapter";
import { cryptoRail } from "./crypto/crypto-rail";
import type { PaymentRail } from "./rail";

// The rail adapters by inner handler id: completion charges through them, order cancellations and refunds pay
// back through the rail that charged (svc.crypto arrives with its own issue).

const RAILS: Partial<Record<string, PaymentRail>> = {
  [RAIL_HANDLER_IDS.card]: stripeCardRail,
  [RAIL_HANDLER_IDS.crypto]: cryptoRail,
};

/** The adapter of a rail, or null when the rail cannot move money yet. */
export const railFor = (handlerId: string): PaymentRail | null => RAILS[handlerId] ?? null;

/**
 * The adapter of a rail as this store can use it now, or null: crypto needs the store's payout address and at
 * least one accepted coin (a store may list svc.crypto before it finished setting it up).
 */
export const railForStore = (
  store: { suiRecipient: string | null; acceptedCoins: unknown },
  handlerId: string,
): PaymentRail | null => {
  const rail = railFor(handlerId);
  if (rail && handlerId === RAIL_HANDLER_IDS.crypto) {
    const coins = Array.isArray(store.acceptedCoins) ? store.acceptedCoins : [];
    if (!store.suiRecipient || coins.length === 0) return null;
  }
  return rail;
};

/** Money merchants owe back to buyers outside a rail's own refunds (crypto: a pending merchant action). */
export { owedBackOfCheckouts, type OwedBackView } from "./crypto/owed-back";
