import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

// Stores are read fresh on every call, not from the row cache (lib/config/row-cache.ts) as platform keys are: a
// store's mode decides where money goes (test mode pays the sandbox, live mode the merchant's Stripe account and
// the Sui mainnet), so an instance serving a store from memory for even a second after it went live elsewhere could
// take a sandbox payment for a live order.

export const isValidStoreSlug = (slug: string): boolean => SLUG_PATTERN.test(slug);

/**
 * The store behind `/s/<slug>/…`.
 * @throws AppError store_not_found for an unknown or malformed slug
 */
export const getStoreOrThrow = async (slug: string): Promise<Store> => {
  const notFound = () =>
    new AppError("store_not_found", `No store with slug "${slug}"`, { path: "$.store_slug" });
  if (!isValidStoreSlug(slug)) throw notFound();
  const store = await (await getDb()).store.findUnique({ where: { slug } });
  if (!store) throw notFound();
  return store;
};
