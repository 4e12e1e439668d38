import "server-only";

import type { Db } from "@/lib/config/db";
import { query, sql } from "@/lib/config/sql";
import type { UcpMessage } from "@/lib/core/envelope";
import type { Store } from "@/lib/generated/prisma/client";

import type { LineItemInput } from "./schemas";

// Live pricing and availability for requested lines (seed §2: carts show live prices). Unknown variants are
// dropped with an `item_unavailable` error; lines beyond stock stay with an `out_of_stock` error so the agent
// can fix them in one update. Line indexes in paths refer to the response's `line_items`.

/** The variant fields pricing and rendering need, with its product's title, media and tags (free-shipping rules). */
export type PricedVariant = {
  id: string;
  title: string;
  priceMinor: number;
  inventory: number;
  weightGrams: number;
  product: { title: string; media: unknown; tags: string[] };
};

export type PricedLine = { variant: PricedVariant; quantity: number };

type VariantRow = {
  id: string;
  title: string;
  price_minor: number;
  inventory: number;
  weight_grams: number;
  product_title: string;
  product_media: unknown;
  product_tags: string[];
};

/**
 * The store's variants among `ids`, each with its product, in one round trip (a Prisma `include` costs a second
 * query on every cart and checkout call; these run on every request of the checkout flow, so the statement goes
 * without Prisma's client: lib/config/sql.ts). Pricing reads outside any transaction: the order's transaction
 * takes the stock with its own conditional UPDATE.
 */
const loadVariants = async (storeId: string, ids: readonly string[]): Promise<PricedVariant[]> => {
  if (ids.length === 0) return [];
  const rows = await query<VariantRow>(sql`
    SELECT v.id, v.title, v.price_minor, v.inventory, v.weight_grams,
           p.title AS product_title, p.media AS product_media, p.tags AS product_tags
    FROM variants v JOIN products p ON p.id = v.product_id
    WHERE v.store_id = ${storeId} AND v.id = ANY(${[...ids]}::text[])`);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    priceMinor: r.price_minor,
    inventory: r.inventory,
    weightGrams: r.weight_grams,
    product: { title: r.product_title, media: r.product_media, tags: r.product_tags },
  }));
};

/** How many variant ids a "this is a product" message lists. */
const LISTED_VARIANTS = 10;

/** Ids among `ids` that are products of this store (a common mistake: a product id as a line item's item.id). */
const productVariantsOf = async (db: Db, storeId: string, ids: string[]) => {
  const found = new Map<string, { title: string; variants: { id: string; title: string }[]; more: number }>();
  if (ids.length === 0) return found;
  const products = await db.product.findMany({
    where: { storeId, id: { in: ids } },
    select: {
      id: true,
      title: true,
      variants: {
        select: { id: true, title: true },
        orderBy: [{ position: "asc" }, { id: "asc" }],
        take: LISTED_VARIANTS,
      },
      _count: { select: { variants: true } },
    },
  });
  for (const p of products) {
    found.set(p.id, { title: p.title, variants: p.variants, more: p._count.variants - p.variants.length });
  }
  return found;
};

/**
 * Prices `lines` on the live catalog. `known`: variants of this store read moments ago in the caller's own
 * statement (a checkout session's lines, read with the session: lib/checkout/checkout-record.ts); only the other
 * ids are read here.
 */
export const priceLines = async (
  db: Db,
  store: Store,
  lines: readonly LineItemInput[],
  known: readonly PricedVariant[] = [],
): Promise<{ lines: PricedLine[]; messages: UcpMessage[] }> => {
  const byId = new Map(known.map((v) => [v.id, v]));
  const missing = [...new Set(lines.map((l) => l.item.id))].filter((id) => !byId.has(id));
  for (const v of await loadVariants(store.id, missing)) byId.set(v.id, v);
  const products = await productVariantsOf(
    db,
    store.id,
    missing.filter((id) => !byId.has(id)),
  );
  const messages: UcpMessage[] = [];
  const priced: PricedLine[] = [];
  for (const line of lines) {
    const variant = byId.get(line.item.id);
    if (!variant) {
      const product = products.get(line.item.id);
      messages.push({
        type: "error",
        code: "item_unavailable",
        content: product
          ? `"${line.item.id}" is a product (${product.title}), not a variant: line items take a variant id — ` +
            product.variants.map((v) => `${v.id} (${v.title})`).join(", ") +
            (product.more > 0 ? ` and ${product.more} more (get_product lists them all)` : "")
          : `Variant "${line.item.id}" not found: ${store.name} sells no such variant; use a variant id from this store's catalog`,
        severity: "recoverable",
      });
      continue;
    }
    const index = priced.length;
    priced.push({ variant, quantity: line.quantity });
    if (variant.inventory < line.quantity) {
      messages.push({
        type: "error",
        code: "out_of_stock",
        content:
          variant.inventory === 0
            ? `${variant.product.title} (${variant.title}) is out of stock`
            : `Only ${variant.inventory} of ${variant.product.title} (${variant.title}) in stock`,
        severity: "recoverable",
        path: `$.line_items[${index}].quantity`,
      });
    }
  }
  return { lines: priced, messages };
};
