import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

import { DeleteProductInputSchema } from "./schemas";
import { invalidInput } from "./write-product";

export { DeleteProductInputSchema } from "./schemas";

/**
 * Removes a product and its variants (its search document goes with it, by trigger). Orders keep their copy.
 * @throws AppError invalid_request, not_found
 */
export const deleteProduct = async (store: Store, raw: unknown): Promise<void> => {
  const parsed = DeleteProductInputSchema.safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  const { count } = await (
    await getDb()
  ).product.deleteMany({ where: { id: parsed.data.productId, storeId: store.id } });
  if (count === 0) throw new AppError("not_found", "No such product in this store", { path: "$.productId" });
};
