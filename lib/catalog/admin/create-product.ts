import "server-only";

import type { Store } from "@/lib/generated/prisma/client";

import { productInputSchema } from "./schemas";
import { invalidInput, writeProduct, type AdminProduct } from "./write-product";

export { productInputSchema as createProductInputSchema } from "./schemas";

/**
 * Adds a product and its variants to `store` (prices in the store's currency, major units in, minor units stored).
 * @throws AppError invalid_request (the field's path: a bad value, a taken handle or SKU); nothing is written
 */
export const createProduct = async (store: Store, raw: unknown): Promise<AdminProduct> => {
  const parsed = productInputSchema(store.currency).safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  return writeProduct(store, parsed.data, null);
};
