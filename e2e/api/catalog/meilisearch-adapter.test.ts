import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import {
  createMeilisearchEngine,
  drainOutbox,
  INDEX_SETTINGS,
  reindex,
  type MeiliConfig,
  type ReindexProgress,
} from "@/lib/catalog/search/meilisearch";
import { SearchInputSchema } from "@/lib/catalog/search/schemas";
import { runSearch } from "@/lib/catalog/search/search-catalog";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedCatalogProduct, seedStore } from "../../factories";
import { TEST_BASE_URL } from "../../helpers/app-client";
import { startFakeMeilisearch, type FakeMeilisearch } from "../../helpers/fake-meilisearch";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The Meilisearch adapter's own behaviour against a local TEST DOUBLE of the Meilisearch API
// (e2e/helpers/fake-meilisearch.ts): settings pushed, the full reindex with progress and task polling, the outbox
// written by the database triggers drained as upserts and deletions, and the search request it sends (filters,
// sort, keyset cursors, facets) mapped back into a UCP response. Ranking itself is Meilisearch's: the contract
// suite covers it whenever MEILISEARCH_URL names a real server.

let fake: FakeMeilisearch;
let config: MeiliConfig;
let store: Store;
const products: Awaited<ReturnType<typeof seedCatalogProduct>>[] = [];

before(async () => {
  await prepareTestDatabase();
  fake = await startFakeMeilisearch();
  config = { host: fake.url, indexUid: `products_${randomBytes(4).toString("hex")}` };
  store = await seedStore({
    name: "Meili Store",
    cryptoEnabled: true,
    acceptedCoins: ["USDC"],
  });
  for (const [title, price] of [
    ["Alpine Tent", 24900],
    ["Alpine Stove", 8900],
    ['Alpine Quote " Mug', 1200],
  ] as const) {
    products.push(
      await seedCatalogProduct(store, {
        title,
        tags: ["alpine"],
        categories: ["Sporting Goods > Camping"],
        attributes: [{ name: "Color", value: "Red" }],
        variants: [{ priceMinor: price, inventory: 2 }],
      }),
    );
  }
});
after(async () => {
  const db = await getDb();
  await db.catalogSearchState.update({ where: { id: 1 }, data: { outboxEnabled: false } });
  await fake.close();
  await closeTestDatabase();
});

describe("Meilisearch adapter (against a fake Meilisearch API)", () => {
  test("reindex: pushes the index settings, replaces every document in batches, reports progress, polls tasks", async () => {
    const progress: ReindexProgress[] = [];
    const result = await reindex(config, (p) => progress.push({ ...p }));
    assert.deepEqual(fake.settings.get(config.indexUid), JSON.parse(JSON.stringify(INDEX_SETTINGS)));
    assert.equal(result.done, result.total);
    // Other test files write products while this runs (shared database): the first total is a snapshot, the last
    // report is exact, and no report ever says more is done than its total.
    assert.equal(progress[0]!.done, 0);
    assert.deepEqual(progress.at(-1), result);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.done >= progress[i - 1]!.done);
    for (const p of progress) assert.ok(p.done <= p.total, `progress ${p.done}/${p.total}`);
    assert.ok(fake.taskPolls() >= 3, "each task is polled until it succeeds");
    const doc = fake.documents(config.indexUid).get(products[0]!.id);
    assert.ok(doc, "the product is indexed");
    assert.equal(doc.title, "Alpine Tent");
    assert.equal(doc.store_slug, store.slug);
    assert.deepEqual(doc.payment, ["svc.card", "svc.crypto", "usdc"]);
    assert.deepEqual(doc.attribute_pairs, ["Color=Red"]);
    assert.ok(
      (doc.category_words as string[]).includes("sporting goods > camping"),
      "a categories facet value (the whole path) is filterable",
    );
    assert.equal(doc.price_min_available, 24900);
    assert.equal(doc.available, true);
    const db = await getDb();
    assert.equal((await db.catalogSearchState.findUnique({ where: { id: 1 } }))?.outboxEnabled, true);
  });

  test("the outbox: a product change and a deletion reach the index as an upsert and a delete", async () => {
    const db = await getDb();
    const [tent, stove] = products;
    await db.product.update({ where: { id: tent!.id }, data: { title: "Alpine Tent Pro" } });
    await db.variant.updateMany({ where: { productId: stove!.id }, data: { inventory: 0 } });
    const doomed = await seedCatalogProduct(store, { title: "Doomed Lamp" });
    await db.product.delete({ where: { id: doomed.id } });
    const queued = await db.catalogSearchOutbox.findMany({
      where: { productId: { in: [tent!.id, stove!.id, doomed.id] } },
    });
    assert.ok(queued.length >= 3, "the triggers queued the changed ids in the same transaction");

    await drainOutbox(config);
    const index = fake.documents(config.indexUid);
    assert.equal(index.get(tent!.id)?.title, "Alpine Tent Pro");
    assert.equal(index.get(stove!.id)?.available, false);
    assert.equal(index.has(doomed.id), false);
    const deletions = fake.requests.filter((r) => r.path.endsWith("/documents/delete-batch"));
    assert.ok(deletions.some((r) => (r.body as string[]).includes(doomed.id)));
    assert.equal(
      await db.catalogSearchOutbox.count({ where: { productId: { in: [tent!.id, doomed.id] } } }),
      0,
    );
  });

  test("search: filters, sort and facets in Meilisearch syntax, values quoted; keyset cursor on the next page", async () => {
    const engine = createMeilisearchEngine(config);
    const ctx = { store, baseUrl: TEST_BASE_URL, ucpVersion: "2026-04-08" };
    const body = await runSearch(
      ctx,
      SearchInputSchema.parse({
        query: "alpine",
        filters: { tags: ['Al"pine'], payment: ["USDC"], price: { max: 30000, currency: "usd" } },
        sort: "price_asc",
        pagination: { limit: 1 },
      }),
      engine,
    );
    const sent = fake.requests.filter((r) => r.path.endsWith("/search")).at(-1)!.body as {
      q: string;
      filter: string[];
      sort: string[];
      limit: number;
      facets: string[];
    };
    assert.equal(sent.q, "alpine");
    assert.equal(sent.limit, 2, "one more than the page size, to know whether there is a next page");
    assert.deepEqual(sent.sort, ["price_min_available:asc", "seq:asc"]);
    assert.ok(sent.filter.includes(`store_id = "${store.id}"`));
    assert.ok(sent.filter.includes('tags = "al\\"pine"'), "quotes escaped, tags lower-cased");
    assert.ok(sent.filter.includes('payment IN ["usdc"]'));
    assert.ok(sent.filter.includes('currency = "USD"'));
    assert.ok(sent.filter.includes("price_min_available <= 30000"));
    assert.deepEqual(sent.facets, ["store_id", "categories", "payment"]);

    assertUcpSchema("shopping/catalog_search.json#/$defs/search_response", body);
    assert.equal(body.products.length, 1);
    assert.equal(body.pagination.has_next_page, true);
    assert.ok(body.facets.sellers.some((s) => s.value === store.slug && s.name === "Meili Store"));

    await runSearch(
      ctx,
      SearchInputSchema.parse({
        query: "alpine",
        filters: { tags: ['Al"pine'], payment: ["USDC"], price: { max: 30000, currency: "usd" } },
        sort: "price_asc",
        pagination: { limit: 1, cursor: body.pagination.cursor },
      }),
      engine,
    );
    const second = fake.requests.filter((r) => r.path.endsWith("/search")).at(-1)!.body as {
      filter: string[];
      offset: number;
    };
    assert.equal(second.offset, 0, "price pages are keyset filters, not offsets");
    assert.ok(
      second.filter.some((f) =>
        /^\(price_min_available > \d+ OR \(price_min_available = \d+ AND seq > \d+\)\)$/.test(f),
      ),
    );
  });

  test("a Postgres-engine cursor is refused by the Meilisearch engine", async () => {
    const { runSearch: run } = await import("@/lib/catalog/search/search-catalog");
    const { postgresEngine } = await import("@/lib/catalog/search/postgres");
    const ctx = { store, baseUrl: TEST_BASE_URL, ucpVersion: "2026-04-08" };
    const page = await run(ctx, { query: "alpine", pagination: { limit: 1 } }, postgresEngine);
    await assert.rejects(
      run(
        ctx,
        { query: "alpine", pagination: { limit: 1, cursor: page.pagination.cursor } },
        createMeilisearchEngine(config),
      ),
      (e: { code?: string; path?: string }) =>
        e.code === "invalid_request" && e.path === "$.pagination.cursor",
    );
  });
});
