import "server-only";

import { getDb } from "@/lib/config/db";
import type { Product, Store, Variant } from "@/lib/generated/prisma/client";

// Loads products by id with their variants (by position) and store, in one query, in the order asked for.

export type LoadedProduct = Product & { variants: Variant[]; store: Store };

export const loadProducts = async (ids: readonly string[]): Promise<LoadedProduct[]> => {
  if (ids.length === 0) return [];
  const db = await getDb();
  const rows = await db.product.findMany({
    where: { id: { in: [...ids] } },
    include: { variants: { orderBy: { position: "asc" } }, store: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row && row.variants.length > 0 ? [row] : [];
  });
};

/** Variants with the in-stock ones first (position order kept within each group): [0] is the featured one. */
export const inStockFirst = (variants: readonly Variant[]): Variant[] => [
  ...variants.filter((v) => v.inventory > 0),
  ...variants.filter((v) => v.inventory <= 0),
];
