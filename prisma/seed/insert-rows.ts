// Bulk insert of generated catalog chunks. Two strategies with identical results, kept side by side because the
// faster one differs by backend and the seed's --strategy flag lets anyone re-measure:
//  - "create-many": Prisma createMany (portable, typed; Prisma expands rows into bound parameters).
//  - "json-recordset": one INSERT … SELECT FROM jsonb_to_recordset($1) per table; the whole chunk travels as one
//    JSON text parameter, so the database parses it once instead of binding ~15 parameters per row.
import type { PrismaClient } from "@/lib/generated/prisma/client";

import type { ProductRow, VariantRow } from "./generate-catalog";

export const INSERT_STRATEGIES = ["json-recordset", "create-many"] as const;
export type InsertStrategy = (typeof INSERT_STRATEGIES)[number];

export const isInsertStrategy = (value: string): value is InsertStrategy =>
  (INSERT_STRATEGIES as readonly string[]).includes(value);

// Column lists mirror prisma/schema.prisma's @map names; the recordset types must match the migrated column types.
const PRODUCT_COLUMNS = [
  ["id", "text"],
  ["store_id", "text"],
  ["handle", "text"],
  ["title", "text"],
  ["description_text", "text"],
  ["description_html", "text"],
  ["categories", "text[]"],
  ["tags", "text[]"],
  ["attributes", "jsonb"],
  ["options", "jsonb"],
  ["media", "jsonb"],
  ["url", "text"],
  ["created_at", "timestamp(3)"],
  ["updated_at", "timestamp(3)"],
] as const;

const VARIANT_COLUMNS = [
  ["id", "text"],
  ["product_id", "text"],
  ["store_id", "text"],
  ["handle", "text"],
  ["title", "text"],
  ["sku", "text"],
  ["barcode", "text"],
  ["barcode_type", "text"],
  ["price_minor", "integer"],
  ["list_price_minor", "integer"],
  ["currency", "text"],
  ["inventory", "integer"],
  ["weight_grams", "integer"],
  ["options", "jsonb"],
  ["position", "integer"],
  ["created_at", "timestamp(3)"],
  ["updated_at", "timestamp(3)"],
] as const;

const recordsetInsert = (table: string, columns: readonly (readonly [string, string])[]): string => {
  const names = columns.map(([name]) => `"${name}"`).join(", ");
  const definitions = columns.map(([name, type]) => `"${name}" ${type}`).join(", ");
  return `INSERT INTO "${table}" (${names}) SELECT ${names} FROM jsonb_to_recordset($1::jsonb) AS r(${definitions})`;
};

const INSERT_PRODUCTS_SQL = recordsetInsert("products", PRODUCT_COLUMNS);
// A chunk's commit need not wait for its WAL flush: a crash can only lose the last chunks of a seed that is
// re-runnable by design, and unlike fsync=off it can never corrupt the database. LOCAL = this transaction only,
// so pooled PostgreSQL connections go back to the pool unchanged. Saves a disk flush per chunk on PostgreSQL.
const ASYNC_COMMIT_SQL = "SET LOCAL synchronous_commit = off";
const INSERT_VARIANTS_SQL = recordsetInsert("variants", VARIANT_COLUMNS);

// Timestamps go over as ISO strings with "Z"; a timestamp-without-time-zone column ignores the zone and keeps the
// UTC wall time, which is exactly how Prisma stores DateTime.
const productRecord = (p: ProductRow) => ({
  id: p.id,
  store_id: p.storeId,
  handle: p.handle,
  title: p.title,
  description_text: p.descriptionText,
  description_html: p.descriptionHtml,
  categories: p.categories,
  tags: p.tags,
  attributes: p.attributes,
  options: p.options,
  media: p.media,
  url: p.url,
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});

const variantRecord = (v: VariantRow) => ({
  id: v.id,
  product_id: v.productId,
  store_id: v.storeId,
  handle: v.handle,
  title: v.title,
  sku: v.sku,
  barcode: v.barcode,
  barcode_type: v.barcodeType,
  price_minor: v.priceMinor,
  list_price_minor: v.listPriceMinor,
  currency: v.currency,
  inventory: v.inventory,
  weight_grams: v.weightGrams,
  options: v.options,
  position: v.position,
  created_at: v.createdAt.toISOString(),
  updated_at: v.updatedAt.toISOString(),
});

/** Inserts one chunk atomically: a chunk's products never land without their variants. */
export const insertCatalogChunk = async (
  client: PrismaClient,
  {
    products,
    variants,
    strategy,
  }: { products: ProductRow[]; variants: VariantRow[]; strategy: InsertStrategy },
): Promise<void> => {
  if (products.length === 0) return;
  if (strategy === "create-many") {
    await client.$transaction([
      client.$executeRawUnsafe(ASYNC_COMMIT_SQL),
      client.product.createMany({ data: products }),
      client.variant.createMany({ data: variants }),
    ]);
    return;
  }
  await client.$transaction([
    client.$executeRawUnsafe(ASYNC_COMMIT_SQL),
    client.$executeRawUnsafe(INSERT_PRODUCTS_SQL, JSON.stringify(products.map(productRecord))),
    client.$executeRawUnsafe(INSERT_VARIANTS_SQL, JSON.stringify(variants.map(variantRecord))),
  ]);
};
