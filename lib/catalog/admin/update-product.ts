import "server-only";

import type { Store } from "@/lib/generated/prisma/client";

import { updateProductInputSchema } from "./schemas";
import { invalidInput, writeProduct, type AdminProduct } from "./write-product";

export { updateProductInputSchema } from "./schemas";

/**
 * Replaces a product's fields and variants (variants sent with their id keep it; variants left out are removed).
 * @throws AppError invalid_request (the field's path), not_found (no such product in this store); nothing is written
 */
export const updateProduct = async (store: Store, raw: unknown): Promise<AdminProduct> => {
  const parsed = updateProductInputSchema(store.currency).safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  const { productId, ...input } = parsed.data;
  return writeProduct(store, input, productId);
};
