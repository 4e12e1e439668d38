import "server-only";

import { rowCache } from "@/lib/config/row-cache";
import { query, sql } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

// A store is read fresh for every call that moves money (completion, cancellation, a crypto prepare, an order's
// refund): its mode decides where money goes (test mode pays the sandbox, live mode the merchant's Stripe account
// and the Sui mainnet), so an instance serving a store from memory for even a second after it went live elsewhere
// could take a sandbox payment for a live order, and its tax rate and rails price what is charged. Every other call
// may take it from the row cache (lib/config/row-cache.ts: a change made here is seen at once, elsewhere within
// ROW_CACHE_TTL_MS, at most 5 s): the reads (catalog search and lookups, get_checkout, get_cart, get_order), and
// the writes that move no money (creating and updating a checkout or a cart, `storeFromCache` on the operation):
// what they price is priced again, on a fresh store, by the call that pays.

const cachedStores = rowCache<Store>("stores");

/**
 * The store of `slug` as Prisma's client reads it, every column: one statement sent without Prisma's client
 * (lib/config/sql.ts), as every call that moves money reads its store fresh (asserted equal to Prisma's record
 * in e2e/api/stores/read-store.test.ts).
 */
export const readStore = async (slug: string): Promise<Store | null> => {
  const [store] = await query<Store>(sql`
    SELECT id, slug, name, description, mode::text AS mode, currency, country, tax_rate_bps AS "taxRateBps",
           card_enabled AS "cardEnabled", card_brands AS "cardBrands", stripe_secret_key AS "stripeSecretKey",
           stripe_webhook_secret AS "stripeWebhookSecret", stripe_publishable_key AS "stripePublishableKey",
           crypto_enabled AS "cryptoEnabled", accepted_coins AS "acceptedCoins", sui_network AS "suiNetwork",
           sui_recipient AS "suiRecipient", webhook_url AS "webhookUrl",
           agent_cancellations AS "agentCancellations", agent_refund_auto_minor AS "agentRefundAutoMinor",
           remember_addresses AS "rememberAddresses",
           created_at AS "createdAt", updated_at AS "updatedAt"
    FROM stores WHERE slug = ${slug}`);
  return store ?? null;
};

export const isValidStoreSlug = (slug: string): boolean => SLUG_PATTERN.test(slug);

/**
 * The store behind `/s/<slug>/…`; `forRead`: for a call that changes nothing (may be up to ROW_CACHE_TTL_MS old).
 * @throws AppError store_not_found for an unknown or malformed slug
 */
export const getStoreOrThrow = async (
  slug: string,
  { forRead = false }: { forRead?: boolean } = {},
): Promise<Store> => {
  const notFound = () =>
    new AppError("store_not_found", `No store with slug "${slug}"`, { path: "$.store_slug" });
  if (!isValidStoreSlug(slug)) throw notFound();
  const read = () => readStore(slug);
  const store = forRead ? await cachedStores.get(slug, read) : await read();
  if (!store) throw notFound();
  return store;
};
