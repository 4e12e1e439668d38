import "server-only";

import { rowCache } from "@/lib/config/row-cache";
import { query, statementOf } from "@/lib/config/sql";
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

/** Every column of a store as Prisma's client names it: [column, field]. */
const STORE_COLUMNS = [
  ["id", "id"],
  ["slug", "slug"],
  ["name", "name"],
  ["description", "description"],
  ["mode", "mode"],
  ["currency", "currency"],
  ["country", "country"],
  ["tax_rate_bps", "taxRateBps"],
  ["card_enabled", "cardEnabled"],
  ["card_brands", "cardBrands"],
  ["stripe_secret_key", "stripeSecretKey"],
  ["stripe_webhook_secret", "stripeWebhookSecret"],
  ["stripe_publishable_key", "stripePublishableKey"],
  ["crypto_enabled", "cryptoEnabled"],
  ["accepted_coins", "acceptedCoins"],
  ["sui_network", "suiNetwork"],
  ["sui_recipient", "suiRecipient"],
  ["webhook_url", "webhookUrl"],
  ["agent_cancellations", "agentCancellations"],
  ["agent_refund_auto_minor", "agentRefundAutoMinor"],
  ["remember_addresses", "rememberAddresses"],
  ["created_at", "createdAt"],
  ["updated_at", "updatedAt"],
] as const satisfies readonly (readonly [string, keyof Store])[];

const STORE_SELECT = STORE_COLUMNS.map(([column, field]) =>
  column === "mode" ? `mode::text AS mode` : column === field ? column : `${column} AS "${field}"`,
).join(", ");

/**
 * The fresh store of a row `<alias>` of another table (its `store_id`) as one JSON column, for a statement that
 * reads the store with what it reads for a call that moves money (the completion reads it with its session:
 * lib/checkout/checkout-record.ts). The timestamps travel as epoch milliseconds; `storeOfJson` makes the record.
 * No parameters, so the text can sit in any statement.
 */
export const storeJsonOf = (alias: string): string =>
  `(SELECT json_build_object(${STORE_COLUMNS.map(([column, field]) =>
    column === "created_at" || column === "updated_at"
      ? `'${field}', floor(extract(epoch FROM s.${column}) * 1000)`
      : column === "mode"
        ? `'${field}', s.mode::text`
        : `'${field}', s.${column}`,
  ).join(", ")}) FROM stores s WHERE s.id = ${alias}.store_id)`;

/** The store record of a `storeJsonOf` column: as readStore reads it (asserted in read-store.test.ts). */
export const storeOfJson = (json: unknown): Store => {
  const row = json as Omit<Store, "createdAt" | "updatedAt"> & {
    createdAt: number | string;
    updatedAt: number | string;
  };
  return { ...row, createdAt: new Date(Number(row.createdAt)), updatedAt: new Date(Number(row.updatedAt)) };
};

/**
 * The store of `slug` as Prisma's client reads it, every column: one statement sent without Prisma's client
 * (lib/config/sql.ts), as every call that moves money reads its store fresh (asserted equal to Prisma's record
 * in e2e/api/stores/read-store.test.ts).
 */
export const readStore = async (slug: string): Promise<Store | null> => {
  const [store] = await query<Store>(
    statementOf(`SELECT ${STORE_SELECT} FROM stores WHERE slug = $1`, [slug]),
  );
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
