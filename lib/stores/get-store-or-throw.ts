import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export const isValidStoreSlug = (slug: string): boolean => SLUG_PATTERN.test(slug);

/**
 * The store behind `/s/<slug>/…`.
 * @throws AppError store_not_found for an unknown or malformed slug
 */
export const getStoreOrThrow = async (slug: string): Promise<Store> => {
  const notFound = () =>
    new AppError("store_not_found", `No store with slug "${slug}"`, { path: "$.store_slug" });
  if (!isValidStoreSlug(slug)) throw notFound();
  const db = await getDb();
  const store = await db.store.findUnique({ where: { slug } });
  if (!store) throw notFound();
  return store;
};
