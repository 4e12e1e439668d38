import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";

import { seedCatalogProduct, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The search contract: what ANY engine must return for a fixed catalog — relevance order for word forms
// and typos, every filter, every sort, facets usable as filters, and pagination without gaps or duplicates while
// products are added between pages. It runs on the configured engine: PostgreSQL full-text search on PGlite and on
// PostgreSQL (npm run test:integration), and Meilisearch whenever MEILISEARCH_URL is set (the index is rebuilt
// first). Every search is narrowed to this file's two stores with filters.seller (their slugs share a random
// token), so test files running in parallel on one PostgreSQL do not disturb each other.

type Price = { amount: number; currency: string };
type WireProduct = {
  id: string;
  title: string;
  price_range: { min: Price; max: Price };
  variants: { price: Price; availability: { available: boolean } }[];
  metadata: { svc_seller: { slug: string } };
};
type Facet = { value: string; count: number; name?: string };
type SearchBody = {
  products: WireProduct[];
  pagination: { has_next_page: boolean; cursor?: string; total_count: number };
  facets: { categories: Facet[]; sellers: Facet[]; payment: Facet[] };
};

const RUN = `c${randomBytes(4).toString("hex")}`;
let north: Store;
let south: Store;
const ids: Record<string, string> = {};
const T0 = Date.UTC(2026, 9, 1);

const BOOTS = "Apparel & Accessories > Shoes > Boots";
const COATS = "Apparel & Accessories > Clothing > Outerwear > Coats & Jackets";

before(async () => {
  await prepareTestDatabase();
  north = await seedStore({ slug: `${RUN}-north`, name: "North Ridge Supply" });
  south = await seedStore({
    slug: `${RUN}-south`,
    name: "South Bay Goods",
    cryptoEnabled: true,
    acceptedCoins: ["USDC"],
  });
  const specs = [
    ["boots", north, "Waterproof Hiking Boots", 11900, 5, ["waterproof", "boots"], [BOOTS], "Brown"],
    [
      "runner",
      north,
      "Trail Running Shoe",
      8900,
      5,
      ["running"],
      ["Apparel & Accessories > Shoes > Athletic Shoes"],
      "Blue",
    ],
    ["leather", south, "Leather Hiking Boot", 15900, 2, ["leather"], [BOOTS], "Brown"],
    ["jacket", south, "Insulated Winter Jacket", 19900, 3, ["insulated", "winter"], [COATS], "Black"],
    [
      "lantern",
      north,
      "Camping Lantern",
      2900,
      0,
      ["camping"],
      ["Sporting Goods > Outdoor Recreation > Camping"],
      "Green",
    ],
    [
      "bottle",
      south,
      "Stainless Water Bottle",
      2400,
      9,
      ["hydration"],
      ["Home & Garden > Kitchen > Drinkware"],
      "Silver",
    ],
  ] as const;
  let i = 0;
  for (const [key, store, title, price, inventory, tags, categories, color] of specs) {
    const p = await seedCatalogProduct(store, {
      title,
      description: `${title}. Built for the outdoors.`,
      tags: [...tags],
      categories: [...categories],
      attributes: [{ name: "Color", value: color }],
      createdAt: new Date(T0 + i++ * 60_000),
      variants: [{ priceMinor: price, inventory }],
    });
    ids[key] = p.id;
  }
  if (process.env.MEILISEARCH_URL) {
    const { meiliConfigFromEnv, reindex } = await import("@/lib/catalog/search/meilisearch");
    await reindex(meiliConfigFromEnv());
  }
});
after(closeTestDatabase);

type SearchArgs = {
  query?: string;
  filters?: Record<string, unknown>;
  sort?: string;
  pagination?: { limit?: number; cursor?: string };
};

const search = async (args: SearchArgs): Promise<SearchBody> => {
  const body = { ...args, filters: { seller: RUN, ...args.filters } };
  const res = await rest<SearchBody>("POST", "/catalog/search", { body });
  assert.equal(res.status, 200, res.text);
  assertUcpSchema("shopping/catalog_search.json#/$defs/search_response", res.body);
  return res.body;
};

const keysOf = (body: SearchBody): string[] =>
  body.products.map((p) => Object.entries(ids).find(([, id]) => id === p.id)?.[0] ?? p.id);

const sorted = (xs: string[]) => [...xs].sort();

describe("search contract: full-text query", () => {
  test("word forms match (boot ~ boots, hike ~ hiking) and word order is irrelevant", async () => {
    assert.deepEqual(sorted(keysOf(await search({ query: "boot" }))), ["boots", "leather"]);
    assert.deepEqual(sorted(keysOf(await search({ query: "hike boots" }))), ["boots", "leather"]);
    assert.deepEqual(sorted(keysOf(await search({ query: "boots hiking" }))), ["boots", "leather"]);
  });

  test("results by relevance: the product matching in title and tags comes first", async () => {
    assert.deepEqual(keysOf(await search({ query: "waterproof boots" }))[0], "boots");
    assert.deepEqual(keysOf(await search({ query: "boots" })), ["boots", "leather"]);
  });

  test("small typos fall back to fuzzy matches: dropped, replaced and swapped letters", async () => {
    assert.deepEqual(keysOf(await search({ query: "hikng" })).sort(), ["boots", "leather"]);
    assert.deepEqual(keysOf(await search({ query: "watreproof" })), ["boots"]);
    assert.deepEqual(keysOf(await search({ query: "jakcet" })), ["jacket"]);
    assert.deepEqual(keysOf(await search({ query: "insulatd jackett" })), ["jacket"]);
  });

  test("a query word the catalog lacks does not empty the result: products matching more words rank first", async () => {
    const keys = keysOf(await search({ query: "waterproof boots zzzqqq" }));
    assert.equal(keys[0], "boots");
  });

  test("a query that matches nothing is an empty page, not an error", async () => {
    const body = await search({ query: "xylophone" });
    assert.deepEqual(body.products, []);
    assert.deepEqual(body.pagination, { has_next_page: false, total_count: 0 });
  });
});

describe("search contract: filters", () => {
  test("filters.price.max (minor units) with currency; min too", async () => {
    assert.deepEqual(sorted(keysOf(await search({ query: "boots", filters: { price: { max: 12000 } } }))), [
      "boots",
    ]);
    const usd = await search({ filters: { price: { max: 12000, currency: "USD" } } });
    assert.deepEqual(sorted(keysOf(usd)), ["boots", "bottle", "runner"]);
    const ranged = await search({ filters: { price: { min: 9000, max: 16000 } } });
    assert.deepEqual(sorted(keysOf(ranged)), ["boots", "leather"]);
    const eur = await search({ filters: { price: { max: 12000, currency: "EUR" } } });
    assert.deepEqual(eur.products, []);
    const viaContext = await search({
      filters: { price: { max: 12000 } },
      context: { currency: "EUR" },
    } as SearchArgs);
    assert.deepEqual(viaContext.products, [], "context.currency denominates the price filter");
  });

  test("filters.tags exact and case-insensitive (all listed tags)", async () => {
    assert.deepEqual(keysOf(await search({ filters: { tags: ["WATERPROOF"] } })), ["boots"]);
    assert.deepEqual(keysOf(await search({ filters: { tags: ["waterproof", "boots"] } })), ["boots"]);
    assert.deepEqual(keysOf(await search({ filters: { tags: ["waterproo"] } })), [], "tags are exact");
  });

  test("filters.attributes exact name/value pairs", async () => {
    const brown = await search({ filters: { attributes: [{ name: "Color", value: "Brown" }] } });
    assert.deepEqual(sorted(keysOf(brown)), ["boots", "leather"]);
    const none = await search({ filters: { attributes: [{ name: "Color", value: "brow" }] } });
    assert.deepEqual(none.products, []);
  });

  test("filters.categories partial match on the taxonomy path (any of)", async () => {
    assert.deepEqual(sorted(keysOf(await search({ filters: { categories: ["boots"] } }))), [
      "boots",
      "leather",
    ]);
    assert.deepEqual(keysOf(await search({ filters: { categories: ["Outerwear"] } })), ["jacket"]);
    const either = await search({ filters: { categories: ["drinkware", "outerwear"] } });
    assert.deepEqual(sorted(keysOf(either)), ["bottle", "jacket"]);
  });

  test("filters.seller fuzzy on slug and name", async () => {
    const byName = await rest<SearchBody>("POST", "/catalog/search", {
      body: { query: "boots", filters: { seller: "north ridge" } },
    });
    assert.ok(byName.body.products.some((p) => p.id === ids.boots));
    assert.ok(byName.body.products.every((p) => p.id !== ids.leather));
    const bySlug = await search({ filters: { seller: `${RUN}-south` } });
    assert.deepEqual(sorted(keysOf(bySlug)), ["bottle", "jacket", "leather"]);
  });

  test("filters.available: out-of-stock hidden by default, included with false (valid alone)", async () => {
    assert.ok(!keysOf(await search({ query: "lantern" })).includes("lantern"));
    assert.deepEqual(keysOf(await search({ query: "lantern", filters: { available: false } })), ["lantern"]);
    const all = await search({ filters: { available: false } });
    assert.equal(all.pagination.total_count, 6);
  });

  test("filters.payment: a rail id or a coin symbol (payable in USDC)", async () => {
    assert.deepEqual(sorted(keysOf(await search({ filters: { payment: ["USDC"] } }))), [
      "bottle",
      "jacket",
      "leather",
    ]);
    assert.deepEqual(sorted(keysOf(await search({ filters: { payment: ["svc.crypto"] } }))), [
      "bottle",
      "jacket",
      "leather",
    ]);
    assert.equal((await search({ filters: { payment: ["svc.card"] } })).pagination.total_count, 5);
    assert.deepEqual((await search({ filters: { payment: ["DOGE"] } })).products, []);
  });
});

describe("search contract: sorts", () => {
  test("price_asc, price_desc, newest; default newest without a query", async () => {
    assert.deepEqual(keysOf(await search({ filters: {}, sort: "price_asc" })), [
      "bottle",
      "runner",
      "boots",
      "leather",
      "jacket",
    ]);
    assert.deepEqual(keysOf(await search({ sort: "price_desc" })), [
      "jacket",
      "leather",
      "boots",
      "runner",
      "bottle",
    ]);
    const newest = ["bottle", "jacket", "leather", "runner", "boots"];
    assert.deepEqual(keysOf(await search({ sort: "newest" })), newest);
    assert.deepEqual(keysOf(await search({})), newest, "seller filter alone: newest first");
  });
});

describe("search contract: facets", () => {
  test("categories, sellers and payment facets count the whole result, and their values work as filters", async () => {
    const body = await search({ filters: { available: false } });
    const sellers = Object.fromEntries(body.facets.sellers.map((f) => [f.value, f.count]));
    assert.deepEqual(sellers, { [north.slug]: 3, [south.slug]: 3 });
    assert.equal(body.facets.sellers.find((f) => f.value === north.slug)?.name, "North Ridge Supply");
    const boots = body.facets.categories.find((f) => f.value === BOOTS);
    assert.equal(boots?.count, 2);
    const usdc = body.facets.payment.find((f) => f.value === "USDC");
    assert.equal(usdc?.count, 3);

    const byCategory = await search({ filters: { available: false, categories: [BOOTS] } });
    assert.equal(byCategory.pagination.total_count, boots?.count);
    const bySeller = await rest<SearchBody>("POST", "/catalog/search", {
      body: { filters: { available: false, seller: north.slug } },
    });
    assert.equal(bySeller.body.pagination.total_count, 3);
    const byCoin = await search({ filters: { available: false, payment: [usdc!.value] } });
    assert.equal(byCoin.pagination.total_count, 3);
  });
});

describe("search contract: pagination", () => {
  const walk = async (args: SearchArgs, onPage: (n: number) => Promise<void> = async () => {}) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const body = await search({ ...args, pagination: { limit: 2, ...(cursor ? { cursor } : {}) } });
      assert.ok(body.products.length <= 2);
      seen.push(...body.products.map((p) => p.id));
      if (!body.pagination.has_next_page) return seen;
      assert.ok(body.pagination.cursor, "cursor present when has_next_page");
      cursor = body.pagination.cursor;
      await onPage(page);
    }
    throw new Error("pagination did not end");
  };

  for (const sort of ["newest", "price_asc", "price_desc"] as const) {
    test(`${sort}: pages cover the result without gaps or duplicates while products are added`, async () => {
      const before = (
        await search({ sort, filters: { available: false }, pagination: { limit: 50 } })
      ).products.map((p) => p.id);
      const added: string[] = [];
      const seen = await walk({ sort, filters: { available: false, tags: ["paginated"] } }, async () => {});
      assert.deepEqual(seen, []);
      const all = await walk({ sort, filters: { available: false } }, async (n) => {
        const p = await seedCatalogProduct(n % 2 ? north : south, {
          title: `Added Item ${sort} ${n}`,
          tags: ["added"],
          createdAt: new Date(T0 + (100 + n) * 60_000),
          variants: [{ priceMinor: 1000 + n, inventory: 1 }],
        });
        added.push(p.id);
      });
      assert.equal(new Set(all).size, all.length, "no duplicates");
      for (const id of before) assert.ok(all.includes(id), `no gap: ${id} missing`);
      const originals = all.filter((id) => before.includes(id));
      assert.deepEqual(originals, before, "original products keep their order");
    });
  }

  test("relevance: pages are in rank order without duplicates", async () => {
    const one = await search({ query: "boots hiking waterproof", pagination: { limit: 50 } });
    const paged = await walk({ query: "boots hiking waterproof" });
    assert.deepEqual(
      paged,
      one.products.map((p) => p.id),
    );
    assert.equal(one.pagination.total_count, one.products.length);
  });
});
