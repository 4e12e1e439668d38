import "server-only";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { rotateStoreSigningKey } from "@/lib/stores/rotate-signing-key";
import { setStoreWebhookUrl } from "@/lib/stores/set-webhook-url";

import { listDeliveries } from "./list-deliveries";
import { enableWebhookEndpoint, redeliverWebhook } from "./manage-deliveries";

// The merchant admin's webhooks: the URL, the key deliveries are signed with, the delivery log and redelivery.
// Deliveries carry no shared secret: each is signed (RFC 9421) with the store's signing key, whose public half the
// store profile publishes, so "rotating the secret" is rotating that key: a receiver fetches the new public key
// from the profile; the old one stays published for the grace period. Staff read the log and redeliver; the URL and
// the key are owners' (they decide where the store's order data goes and who can verify it).

/** @throws AppError store_not_found */
export const webhookOverview = async (account: AccountSummary, slug: string, { limit = 50 } = {}) => {
  const { store, role } = await storeForAccount(account, slug, "staff");
  const db = await getDb();
  const [keys, endpoints, deliveries] = await Promise.all([
    db.storeSigningKey.findMany({
      where: { storeId: store.id },
      orderBy: { createdAt: "desc" },
      select: { kid: true, createdAt: true, retiredAt: true },
    }),
    db.webhookEndpoint.findMany({ where: { storeId: store.id }, orderBy: { createdAt: "asc" } }),
    listDeliveries(store.id, { limit }),
  ]);
  return { store, role, webhookUrl: store.webhookUrl, keys, endpoints, deliveries };
};

/**
 * Sets (blank: clears) the store's webhook URL through the outbound rules of set-webhook-url.ts (owners only).
 * @throws AppError store_not_found, owner_required, invalid_request
 */
export const setWebhookUrlAsMerchant = async (account: AccountSummary, slug: string, url: string) => {
  const { store } = await storeForAccount(account, slug, "owner");
  if (url.length > 2000) {
    throw new AppError("invalid_request", "The webhook URL is too long (at most 2000 characters)", {
      path: "$.webhook_url",
    });
  }
  return setStoreWebhookUrl(store.slug, url);
};

/**
 * Rotates the key the store signs its webhooks (and responses) with (owners only); returns the new key id.
 * @throws AppError store_not_found, owner_required
 */
export const rotateWebhookKeyAsMerchant = async (account: AccountSummary, slug: string) => {
  const { store } = await storeForAccount(account, slug, "owner");
  const rotation = await rotateStoreSigningKey(store.id);
  return { kid: rotation!.kid, retired: rotation!.retired };
};

/** @throws AppError store_not_found, not_found (a delivery of another store, too) */
export const redeliverAsMerchant = async (account: AccountSummary, slug: string, deliveryId: string) => {
  const { store } = await storeForAccount(account, slug, "staff");
  await redeliverWebhook(deliveryId, store.id);
};

/** @throws AppError store_not_found, not_found */
export const enableEndpointAsMerchant = async (account: AccountSummary, slug: string, endpointId: string) => {
  const { store } = await storeForAccount(account, slug, "staff");
  await enableWebhookEndpoint(endpointId, store.id);
};
