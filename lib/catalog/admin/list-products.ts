import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Prisma, Store } from "@/lib/generated/prisma/client";

import { ListProductsInputSchema } from "./schemas";
import { invalidInput, type AdminProduct } from "./write-product";

export { ListProductsInputSchema } from "./schemas";

export const ADMIN_PAGE_SIZE = 25;

export type ProductPage = {
  products: AdminProduct[];
  page: number;
  pageCount: number;
  total: number;
};

/**
 * One page of the store's products, newest first; `query` matches title, handle or a variant's SKU (any case).
 * @throws AppError invalid_request
 */
export const listProducts = async (store: Store, raw: unknown): Promise<ProductPage> => {
  const parsed = ListProductsInputSchema.safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error);
  const { query, page } = parsed.data;
  const where: Prisma.ProductWhereInput = {
    storeId: store.id,
    ...(query
      ? {
          OR: [
            { title: { contains: query, mode: "insensitive" } },
            { handle: { contains: query, mode: "insensitive" } },
            { variants: { some: { sku: { contains: query, mode: "insensitive" } } } },
          ],
        }
      : {}),
  };
  const db = await getDb();
  const total = await db.product.count({ where });
  const products = await db.product.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: (page - 1) * ADMIN_PAGE_SIZE,
    take: ADMIN_PAGE_SIZE,
    include: { variants: { orderBy: { position: "asc" } } },
  });
  return { products, page, pageCount: Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE)), total };
};

/** One product of the store with its variants. @throws AppError not_found */
export const getAdminProduct = async (store: Store, productId: string): Promise<AdminProduct> => {
  const product = await (
    await getDb()
  ).product.findFirst({
    where: { id: productId, storeId: store.id },
    include: { variants: { orderBy: { position: "asc" } } },
  });
  if (!product) throw new AppError("not_found", "No such product in this store", { path: "$.productId" });
  return product;
};
