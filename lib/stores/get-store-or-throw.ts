import "server-only";

import { getDb } from "@/lib/config/db";
import { rowCache } from "@/lib/config/row-cache";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Stores by slug, read by nearly every call: kept briefly in memory (the staleness bound: lib/config/row-cache.ts). */
const stores = rowCache<Store>("stores");

export const isValidStoreSlug = (slug: string): boolean => SLUG_PATTERN.test(slug);

/**
 * The store behind `/s/<slug>/…`.
 * @throws AppError store_not_found for an unknown or malformed slug
 */
export const getStoreOrThrow = async (slug: string): Promise<Store> => {
  const notFound = () =>
    new AppError("store_not_found", `No store with slug "${slug}"`, { path: "$.store_slug" });
  if (!isValidStoreSlug(slug)) throw notFound();
  const store = await stores.get(slug, async () => (await getDb()).store.findUnique({ where: { slug } }));
  if (!store) throw notFound();
  // a copy: a caller that changes its store object never changes the cached one
  return { ...store };
};
