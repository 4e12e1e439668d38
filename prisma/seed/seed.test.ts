// Seed contract: deterministic catalog, exact totals, integer prices, some stock-outs, a two-rail test store.
// Runs on a freshly migrated in-memory PGlite: `npx tsx --test prisma/seed/seed.test.ts`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { PGlite } from "@electric-sql/pglite";
import { fuzzystrmatch } from "@electric-sql/pglite/contrib/fuzzystrmatch";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { calculateJwkThumbprint } from "jose";
import { PrismaPGlite } from "pglite-prisma-adapter";

import { PrismaClient } from "@/lib/generated/prisma/client";
import { toPublicJwk } from "@/lib/stores/signing-keys";
import { applyMigrations } from "@/scripts/db/migrate-engine";

import { allocateProducts, DEMO_STORES } from "./demo-stores";
import { gtin13CheckDigit, isValidGtin13 } from "./gtin";
import { DEFAULT_SEED_ANCHOR, isDatabaseEmpty, resetDemoData, seedDatabase } from "./index";

// Small enough to stay fast, large enough that every store gets products and the rates below are stable.
const PRODUCTS = 700;
// Not a multiple of the product count, so chunk boundaries fall mid-store.
const CHUNK_SIZE = 150;

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

// Whole rows, timestamps included: the two insert strategies must also write identical data.
const snapshot = (client: PrismaClient) =>
  client.product.findMany({
    orderBy: { id: "asc" },
    include: { variants: { orderBy: { position: "asc" } } },
  });

describe("seedDatabase", () => {
  let pg: PGlite;
  let client: PrismaClient;
  let first: Snapshot;
  let firstResult: Awaited<ReturnType<typeof seedDatabase>>;

  before(async () => {
    pg = await PGlite.create({ dataDir: "memory://", extensions: { pg_trgm, fuzzystrmatch } });
    const factory = new PrismaPGlite(pg);
    await applyMigrations(factory);
    client = new PrismaClient({ adapter: factory });
    assert.equal(await isDatabaseEmpty(client), true);
    firstResult = await seedDatabase(client, { products: PRODUCTS, chunkSize: CHUNK_SIZE });
    first = await snapshot(client);
  });

  after(async () => {
    await client.$disconnect();
    await pg.close();
  });

  test("creates exactly the requested number of products, split over every demo store", async () => {
    assert.equal(firstResult.products, PRODUCTS);
    assert.equal(firstResult.stores, DEMO_STORES.length);
    assert.equal(await client.product.count(), PRODUCTS);
    assert.equal(await client.variant.count(), firstResult.variants);
    assert.equal(await isDatabaseEmpty(client), false);
    const expected = allocateProducts(PRODUCTS, DEMO_STORES);
    for (const [i, demo] of DEMO_STORES.entries()) {
      const count = await client.product.count({ where: { store: { slug: demo.slug } } });
      assert.equal(count, expected[i], demo.slug);
      assert.ok(count > 0, `${demo.slug} has products`);
    }
  });

  test("every variant has a positive integer price, a list price above it when on sale, and 1–4 siblings", async () => {
    const variants = await client.variant.findMany({
      select: { productId: true, priceMinor: true, listPriceMinor: true, barcode: true, currency: true },
    });
    const perProduct = new Map<string, number>();
    for (const v of variants) {
      assert.ok(Number.isInteger(v.priceMinor) && v.priceMinor > 0, `price ${v.priceMinor}`);
      if (v.listPriceMinor !== null)
        assert.ok(Number.isInteger(v.listPriceMinor) && v.listPriceMinor > v.priceMinor);
      if (v.barcode !== null) assert.ok(isValidGtin13(v.barcode), `GTIN ${v.barcode}`);
      perProduct.set(v.productId, (perProduct.get(v.productId) ?? 0) + 1);
    }
    for (const n of perProduct.values()) assert.ok(n >= 1 && n <= 4, `${n} variants`);
    assert.equal(perProduct.size, PRODUCTS);
    assert.ok(
      variants.some((v) => v.currency === "EUR"),
      "one store prices in EUR",
    );
  });

  test("some variants are out of stock (roughly 8 %)", async () => {
    const out = await client.variant.count({ where: { inventory: 0 } });
    const rate = out / firstResult.variants;
    assert.ok(rate > 0.03 && rate < 0.15, `out-of-stock rate ${rate}`);
  });

  test("stores are test mode, one takes both rails, each has a public signing key and 2–4 locations", async () => {
    const stores = await client.store.findMany({ include: { signingKeys: true, locations: true } });
    assert.ok(stores.every((s) => s.mode === "test"));
    const bothRails = stores.filter((s) => s.cardEnabled && s.cryptoEnabled);
    assert.ok(bothRails.length >= 1);
    const coins = bothRails.flatMap((s) => (Array.isArray(s.acceptedCoins) ? s.acceptedCoins : []));
    assert.ok(coins.includes("USDC"), JSON.stringify(coins));
    for (const s of bothRails) assert.match(s.suiRecipient ?? "", /^0x[0-9a-f]{64}$/);
    for (const s of stores) {
      assert.equal(s.signingKeys.length, 1, s.slug);
      const [key] = s.signingKeys;
      assert.ok(key);
      const publicJwk = toPublicJwk(key.publicJwk);
      assert.equal(publicJwk.d, undefined);
      assert.equal(publicJwk.alg, "ES256");
      assert.equal(key.kid, await calculateJwkThumbprint(publicJwk, "sha256"));
      assert.equal(toPublicJwk(key.privateJwk).d, undefined, "toPublicJwk strips the private scalar");
      // its age counts from when it was minted: a fresh demo does not rotate its keys on first start
      assert.ok(Date.now() - key.createdAt.getTime() < 86_400_000, "a seeded key is minted now");
      assert.ok(s.locations.length >= 2 && s.locations.length <= 4, s.slug);
      for (const l of s.locations)
        assert.ok(Number.isInteger(l.latitudeE6) && Number.isInteger(l.longitudeE6));
    }
  });

  test("titles make full-text demos meaningful: several waterproof hiking boots", async () => {
    const boots = await client.product.count({
      where: { title: { contains: "Waterproof Hiking Boot" }, tags: { has: "waterproof" } },
    });
    assert.ok(boots >= 3, `${boots} waterproof hiking boots`);
    const anchor = DEFAULT_SEED_ANCHOR.getTime();
    const oldest = await client.product.findFirst({
      orderBy: { createdAt: "asc" },
      select: { createdAt: true },
    });
    assert.ok(oldest && oldest.createdAt.getTime() >= anchor - 366 * 86_400_000, "createdAt within the year");
  });

  test("reset + reseed with the same options yields the identical catalog", async () => {
    assert.equal(await resetDemoData(client), DEMO_STORES.length);
    assert.equal(await isDatabaseEmpty(client), true);
    const again = await seedDatabase(client, { products: PRODUCTS, chunkSize: 400, strategy: "create-many" });
    assert.equal(again.variants, firstResult.variants);
    assert.deepEqual(await snapshot(client), first);
  });
});

test("GTIN-13 check digit matches a known EAN", () => {
  assert.equal(gtin13CheckDigit("400638133393"), 1);
  assert.ok(isValidGtin13("4006381333931"));
  assert.ok(!isValidGtin13("4006381333932"));
});
