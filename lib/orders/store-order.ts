import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

import { ORDER_INCLUDE, type OrderRecord } from "./to-wire";

/**
 * The merchant's view of one order of its store, whoever placed it (the shopping surfaces show a caller only its
 * own orders). An id of another store is not_found.
 * @throws AppError not_found
 */
export const getStoreOrder = async (store: Pick<Store, "id">, id: string): Promise<OrderRecord> => {
  const db = await getDb();
  const order = await db.order.findFirst({ where: { id, storeId: store.id }, include: ORDER_INCLUDE });
  if (!order) throw new AppError("not_found", `No order "${id}" in this store`, { path: "$.id" });
  return order;
};
