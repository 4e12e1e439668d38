import "server-only";

import { getDb } from "@/lib/config/db";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

export type StoreSummary = {
  slug: string;
  name: string;
  description: string;
  mode: "test" | "live";
  currency: string;
  rails: string[];
  productCount: number;
};

/** Stores for the landing page, with their rails and product counts. */
export const listStores = async (): Promise<StoreSummary[]> => {
  const db = await getDb();
  const stores = await db.store.findMany({
    orderBy: { name: "asc" },
    include: { _count: { select: { products: true } } },
  });
  return stores.map((s) => ({
    slug: s.slug,
    name: s.name,
    description: s.description,
    mode: s.mode,
    currency: s.currency,
    rails: [
      ...(s.cardEnabled ? [RAIL_HANDLER_IDS.card] : []),
      ...(s.cryptoEnabled ? [RAIL_HANDLER_IDS.crypto] : []),
    ],
    productCount: s._count.products,
  }));
};

/** A store as a buyer picks it (an allowance limited to some stores): its name, and the slug the allowance names. */
export type StoreChoice = { slug: string; name: string };

/** Every store by name, for the allowance form's store picker. */
export const listStoreChoices = async (): Promise<StoreChoice[]> =>
  (await getDb()).store.findMany({ select: { slug: true, name: true }, orderBy: { name: "asc" } });
