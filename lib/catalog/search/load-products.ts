import "server-only";

import { getDb } from "@/lib/config/db";
import type { Product, Store, Variant } from "@/lib/generated/prisma/client";

// Loads products by id with their variants (by position) and store, in the order asked for. One statement (the
// variants aggregated as JSON per product) instead of Prisma's three round trips for findMany + include: every
// search and lookup page pays this, and at 100,000 products it was a third of a warm search's statements. The
// mappers below assign every field of Product and Variant, so a column added to the schema fails the typecheck
// here until it is loaded.

export type LoadedProduct = Product & { variants: Variant[]; store: Pick<Store, "id" | "slug" | "name"> };

type ProductRow = {
  id: string;
  store_id: string;
  handle: string;
  title: string;
  description_text: string;
  description_html: string | null;
  categories: string[];
  tags: string[];
  attributes: Product["attributes"];
  options: Product["options"];
  media: Product["media"];
  url: string | null;
  created_at: Date;
  updated_at: Date;
  store_slug: string;
  store_name: string;
  variants: VariantJson[];
};

/** A variant as to_jsonb renders it: column names, timestamps as ISO text without a zone (UTC, timestamp(3)). */
type VariantJson = {
  id: string;
  product_id: string;
  store_id: string;
  handle: string;
  title: string;
  sku: string | null;
  barcode: string | null;
  barcode_type: string | null;
  price_minor: number;
  list_price_minor: number | null;
  currency: string;
  inventory: number;
  weight_grams: number;
  options: Variant["options"];
  position: number;
  created_at: string;
  updated_at: string;
};

// Prisma stores DateTime as UTC `timestamp(3)`; to_jsonb prints it without a zone
const utc = (text: string): Date => new Date(`${text}Z`);

const toVariant = (v: VariantJson): Variant => ({
  id: v.id,
  productId: v.product_id,
  storeId: v.store_id,
  handle: v.handle,
  title: v.title,
  sku: v.sku,
  barcode: v.barcode,
  barcodeType: v.barcode_type,
  priceMinor: v.price_minor,
  listPriceMinor: v.list_price_minor,
  currency: v.currency,
  inventory: v.inventory,
  weightGrams: v.weight_grams,
  options: v.options,
  position: v.position,
  createdAt: utc(v.created_at),
  updatedAt: utc(v.updated_at),
});

const toLoaded = (r: ProductRow): LoadedProduct => ({
  id: r.id,
  storeId: r.store_id,
  handle: r.handle,
  title: r.title,
  descriptionText: r.description_text,
  descriptionHtml: r.description_html,
  categories: r.categories,
  tags: r.tags,
  attributes: r.attributes,
  options: r.options,
  media: r.media,
  url: r.url,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  store: { id: r.store_id, slug: r.store_slug, name: r.store_name },
  variants: r.variants.map(toVariant),
});

export const loadProducts = async (ids: readonly string[]): Promise<LoadedProduct[]> => {
  if (ids.length === 0) return [];
  const db = await getDb();
  const rows = await db.$queryRawUnsafe<ProductRow[]>(
    `SELECT p.id, p.store_id, p.handle, p.title, p.description_text, p.description_html, p.categories, p.tags,
            p.attributes, p.options, p.media, p.url, p.created_at, p.updated_at,
            s.slug AS store_slug, s.name AS store_name, v.variants
     FROM products p
     JOIN stores s ON s.id = p.store_id
     JOIN LATERAL (
       SELECT jsonb_agg(to_jsonb(x) ORDER BY x.position, x.id) AS variants FROM variants x WHERE x.product_id = p.id
     ) v ON v.variants IS NOT NULL
     WHERE p.id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))`,
    JSON.stringify(ids),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toLoaded(row)] : [];
  });
};

/** Variants with the in-stock ones first (position order kept within each group): [0] is the featured one. */
export const inStockFirst = (variants: readonly Variant[]): Variant[] => [
  ...variants.filter((v) => v.inventory > 0),
  ...variants.filter((v) => v.inventory <= 0),
];
