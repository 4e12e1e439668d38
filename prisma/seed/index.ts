// Demo seed as a library: the CLI (prisma/seed.ts) and the start script ("seed if empty") call the same code.
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createSigningKeyMaterial } from "@/lib/stores/signing-keys";

import { checkoutRuleRows } from "./checkout-rules";
import { allocateProducts, DEMO_STORES, type DemoStore } from "./demo-stores";
import { createHandleRegistry, generateProduct, type ProductRow, type VariantRow } from "./generate-catalog";
import { insertCatalogChunk, type InsertStrategy } from "./insert-rows";
import { NO_PROGRESS, startProgressBar } from "./progress-bar";
import { seedId, seedSuiAddress } from "./seed-ids";

export { DEMO_STORES } from "./demo-stores";
export { INSERT_STRATEGIES, isInsertStrategy } from "./insert-rows";
export type { InsertStrategy } from "./insert-rows";

export const DEFAULT_PRODUCT_COUNT = 2_000;
export const DEFAULT_CHUNK_SIZE = 1_000;
/**
 * Fixed "now" of the demo catalog: createdAt values spread over the year before it. Fixed rather than the
 * real clock so reseeding reproduces every column, dates included.
 */
export const DEFAULT_SEED_ANCHOR = new Date("2026-11-01T00:00:00.000Z");
// Stores predate their oldest product.
const STORE_AGE_MS = 400 * 86_400_000;

export type SeedOptions = {
  /** Total products across all demo stores (split by store share). Default 2,000. */
  products?: number;
  log?: (line: string) => void;
  /** Show a cli-progress bar on stderr (silent when stderr is not a TTY). */
  progress?: boolean;
  strategy?: InsertStrategy;
  /** Products per insert transaction. */
  chunkSize?: number;
  anchor?: Date;
};

export type SeedResult = { stores: number; products: number; variants: number; ms: number };

/** True when no store exists: every other seeded row hangs off a store. */
export const isDatabaseEmpty = async (client: PrismaClient): Promise<boolean> =>
  (await client.store.findFirst({ select: { id: true } })) === null;

/**
 * Deletes the demo stores (by slug) and everything under them; stores created by other means are kept.
 * Returns the number of stores removed.
 */
export const resetDemoData = async (client: PrismaClient): Promise<number> => {
  const slugs = DEMO_STORES.map((s) => s.slug);
  const stores = await client.store.findMany({ where: { slug: { in: slugs } }, select: { id: true } });
  const storeIds = stores.map((s) => s.id);
  if (storeIds.length === 0) return 0;
  const inStores = { storeId: { in: storeIds } };
  // Orders restrict deleting their checkout, so they go first; variants and products are deleted per table
  // instead of one cascade from stores, which would fire a per-row FK trigger for every variant.
  await client.$transaction([
    client.order.deleteMany({ where: inStores }),
    client.variant.deleteMany({ where: inStores }),
    client.product.deleteMany({ where: inStores }),
    client.store.deleteMany({ where: { id: { in: storeIds } } }),
  ]);
  return storeIds.length;
};

const storeRow = (store: DemoStore, anchor: Date) => {
  const createdAt = new Date(anchor.getTime() - STORE_AGE_MS);
  return {
    id: seedId("store", store.slug),
    slug: store.slug,
    name: store.name,
    description: store.description,
    mode: "test" as const,
    currency: store.currency,
    country: store.country,
    taxRateBps: store.taxRateBps,
    cardEnabled: store.cardEnabled,
    cardBrands: [...store.cardBrands],
    stripeSecretKey: null,
    cryptoEnabled: store.cryptoEnabled,
    acceptedCoins: [...store.acceptedCoins],
    suiNetwork: "testnet",
    suiRecipient: store.cryptoEnabled ? seedSuiAddress(store.slug) : null,
    webhookUrl: null,
    createdAt,
    updatedAt: createdAt,
  };
};

/**
 * Creates the demo stores (a signing key and 2–4 locations each) and a deterministic catalog of `products` items.
 * Expects the demo slugs to be free (check isDatabaseEmpty or call resetDemoData first); a clash throws
 * Prisma's unique-constraint error before any product is written.
 */
export const seedDatabase = async (client: PrismaClient, options: SeedOptions = {}): Promise<SeedResult> => {
  const startedAt = performance.now();
  const total = options.products ?? DEFAULT_PRODUCT_COUNT;
  const log = options.log ?? (() => {});
  const strategy = options.strategy ?? "json-recordset";
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const anchor = options.anchor ?? DEFAULT_SEED_ANCHOR;
  if (!Number.isInteger(total) || total < 0)
    throw new RangeError(`products must be a non-negative integer, got ${total}`);
  if (!Number.isInteger(chunkSize) || chunkSize < 1)
    throw new RangeError(`chunkSize must be a positive integer`);

  const stores = DEMO_STORES.map((store) => ({ store, row: storeRow(store, anchor) }));
  // Key material is random (a demo key must still be a real secret); only the row id is derived from the slug.
  const keys = await Promise.all(
    stores.map(async ({ store, row }) => {
      const material = await createSigningKeyMaterial();
      return {
        id: seedId("signingKey", store.slug, 1),
        storeId: row.id,
        kid: material.kid,
        publicJwk: material.publicJwk,
        privateJwk: material.privateJwk,
        // minted now (the material is fresh), so the rotation schedule counts the key's age from today, not
        // from the demo store's backdated creation
        createdAt: new Date(),
      };
    }),
  );
  const locations = stores.flatMap(({ store, row }) =>
    store.locations.map((location, i) => ({
      id: seedId("location", store.slug, i),
      storeId: row.id,
      name: location.name,
      address: { ...location.address },
      latitudeE6: location.latitudeE6,
      longitudeE6: location.longitudeE6,
      openingHours: location.openingHours.map((h) => ({ ...h })),
      services: [...location.services],
      createdAt: row.createdAt,
    })),
  );
  const rules = stores.map(({ store, row }) => checkoutRuleRows(store, row.id));
  await client.$transaction([
    client.store.createMany({ data: stores.map((s) => s.row) }),
    client.storeSigningKey.createMany({ data: keys }),
    client.location.createMany({ data: locations }),
    // issue #4: shipping rates and discount codes
    client.shippingRate.createMany({ data: rules.flatMap((r) => r.shippingRates) }),
    client.discountCode.createMany({ data: rules.flatMap((r) => r.discountCodes) }),
  ]);
  log(`Created ${stores.length} stores, ${keys.length} signing keys, ${locations.length} locations`);

  const counts = allocateProducts(total, DEMO_STORES);
  const progress = options.progress ? startProgressBar(total) : NO_PROGRESS;
  let productCount = 0;
  let variantCount = 0;
  // One insert in flight while the next chunk is generated: on PostgreSQL the network round trip overlaps
  // the CPU work; on PGlite (same thread) it simply runs in order.
  let pending: Promise<void> = Promise.resolve();
  try {
    for (const [storeIndex, { store, row }] of stores.entries()) {
      const count = counts[storeIndex] ?? 0;
      const handles = createHandleRegistry();
      for (let start = 0; start < count; start += chunkSize) {
        const products: ProductRow[] = [];
        const variants: VariantRow[] = [];
        for (let index = start; index < Math.min(count, start + chunkSize); index += 1) {
          const generated = generateProduct({ store, storeId: row.id, index, handles, anchor });
          products.push(generated.product);
          variants.push(...generated.variants);
        }
        await pending;
        pending = insertCatalogChunk(client, { products, variants, strategy }).then(() => {
          progress.advance(products.length);
        });
        productCount += products.length;
        variantCount += variants.length;
      }
    }
    await pending;
  } finally {
    // On a generation error, still let the in-flight chunk settle so its rejection cannot surface unhandled.
    await pending.catch(() => undefined);
    progress.stop();
  }
  // Logged after the bar is gone: lines written while it redraws would tear it apart.
  for (const [i, { store }] of stores.entries()) log(`  ${store.slug}: ${counts[i] ?? 0} products`);
  return {
    stores: stores.length,
    products: productCount,
    variants: variantCount,
    ms: Math.round(performance.now() - startedAt),
  };
};
