import "server-only";

import { createHash } from "node:crypto";

import { Meilisearch, type Settings } from "meilisearch";
import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";

import {
  FACET_LIMIT,
  type FacetValue,
  type SearchEngine,
  type SearchPage,
  type SearchRequest,
} from "./engine";
import { likePattern, sellerStoresSql } from "./seller-match";

// The Meilisearch engine (MEILISEARCH_URL set), on the official `meilisearch` client and Meilisearch's documented
// API: index settings, documents, filters, sort, facets and task polling. The index is a copy of
// catalog_search_documents: the database triggers queue changed product ids in catalog_search_outbox (same
// transaction as the change, while outbox_enabled), and drainOutbox() pushes them before each search (read your
// writes) and from `npm run admin -- reindex`, which rebuilds the whole index with a progress bar.
//
// What differs from the PostgreSQL engine (docs/search.md): categories match whole words of the taxonomy path
// (Meilisearch filters have no partial match), typo tolerance is Meilisearch's own, and relevance pages use
// offsets (price and newest pages are keyset filters on the sort key + a numeric tie-breaker, so they stay stable
// while the catalog changes).

export const DEFAULT_INDEX_UID = "products";
const BATCH = 1000;
const TASK_WAIT = { timeout: 60_000, interval: 50 };

/** Index settings (Meilisearch /indexes/{uid}/settings). */
export const INDEX_SETTINGS: Settings = {
  searchableAttributes: ["title", "tags", "categories", "attribute_values", "store_name", "description"],
  filterableAttributes: [
    "store_id",
    "available",
    "currency",
    "price_min",
    "price_min_available",
    "tags",
    "categories",
    "category_words",
    "attribute_pairs",
    "payment",
    "created_at",
    "seq",
  ],
  sortableAttributes: ["price_min", "price_min_available", "created_at", "seq"],
  rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
  typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 4, twoTypos: 7 } },
  faceting: { maxValuesPerFacet: FACET_LIMIT, sortFacetValuesBy: { "*": "count" } },
  pagination: { maxTotalHits: 100_000 },
};

export type MeiliDocument = {
  id: string;
  seq: number;
  store_id: string;
  store_slug: string;
  store_name: string;
  title: string;
  description: string;
  tags: string[];
  categories: string[];
  category_words: string[];
  attribute_values: string[];
  attribute_pairs: string[];
  payment: string[];
  available: boolean;
  currency: string | null;
  price_min: number | null;
  price_min_available: number | null;
  created_at: number;
};

/** A stable numeric tie-breaker (Meilisearch filters compare numbers, not strings): 48 bits of sha256(id). */
export const seqOf = (id: string): number => createHash("sha256").update(id).digest().readUIntBE(0, 6);

type DocRow = {
  product_id: string;
  store_id: string;
  store_slug: string;
  store_name: string;
  title: string;
  description_text: string | null;
  tags: string[];
  categories: string[];
  attributes: { name: string; value: string }[];
  payment: string[];
  available: boolean;
  currency: string | null;
  price_min: number | null;
  price_min_available: number | null;
  created_at: Date;
};

const toDocument = (r: DocRow): MeiliDocument => ({
  id: r.product_id,
  seq: seqOf(r.product_id),
  store_id: r.store_id,
  store_slug: r.store_slug,
  store_name: r.store_name,
  title: r.title,
  description: r.description_text ?? "",
  tags: r.tags,
  categories: r.categories,
  category_words: [
    ...new Set(
      r.categories.flatMap((c) => [
        // the whole path (a facet value is a filter value), its segments and its words
        c.toLowerCase(),
        ...c.toLowerCase().split(/\s*>\s*/),
        ...c.toLowerCase().split(/[^\p{L}\p{N}]+/u),
      ]),
    ),
  ].filter(Boolean),
  attribute_values: r.attributes.map((a) => a.value),
  attribute_pairs: r.attributes.map((a) => `${a.name}=${a.value}`),
  payment: r.payment,
  available: r.available,
  currency: r.currency,
  price_min: r.price_min,
  price_min_available: r.price_min_available,
  created_at: new Date(r.created_at).getTime(),
});

const DOC_SELECT = `SELECT d.product_id, d.store_id, d.store_slug, d.store_name, d.title, p.description_text, d.tags,
  d.categories, d.attributes, d.payment, d.available, d.currency, d.price_min, d.price_min_available, d.created_at
  FROM catalog_search_documents d JOIN products p ON p.id = d.product_id`;

const loadDocuments = async (ids: readonly string[]): Promise<MeiliDocument[]> => {
  const db = await getDb();
  const rows = await db.$queryRawUnsafe<DocRow[]>(
    `${DOC_SELECT} WHERE d.product_id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    JSON.stringify(ids),
  );
  return rows.map(toDocument);
};

export type MeiliConfig = { host: string; apiKey?: string; indexUid: string };

export const meiliConfigFromEnv = (): MeiliConfig => {
  const env = getEnv();
  if (!env.MEILISEARCH_URL) throw new Error("MEILISEARCH_URL is not set");
  return {
    host: env.MEILISEARCH_URL,
    apiKey: env.MEILISEARCH_KEY,
    indexUid: env.MEILISEARCH_INDEX ?? DEFAULT_INDEX_UID,
  };
};

const clientFor = (config: MeiliConfig) =>
  new Meilisearch({ host: config.host, ...(config.apiKey ? { apiKey: config.apiKey } : {}) });

/** Meilisearch's GET /health within `timeoutMs` (readiness): resolves when the engine says it is available. */
export const checkMeilisearchHealth = async (config: MeiliConfig, timeoutMs: number): Promise<void> => {
  const client = new Meilisearch({
    host: config.host,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    timeout: timeoutMs,
  });
  const health = await client.health();
  if (health.status !== "available") throw new Error(`Meilisearch reports ${String(health.status)}`);
};

/** Pushes the index settings and waits for the task (creates the index if it does not exist). */
export const applyIndexSettings = async (config: MeiliConfig): Promise<void> => {
  const index = clientFor(config).index(config.indexUid);
  await index.updateSettings(INDEX_SETTINGS).waitTask(TASK_WAIT);
};

/**
 * Pushes queued product changes to the index: upserts the ones with a document, deletes the rest, waits for each
 * task, then removes the drained outbox rows. Returns how many product ids it handled.
 */
export const drainOutbox = async (config: MeiliConfig): Promise<number> => {
  const db = await getDb();
  const index = clientFor(config).index<MeiliDocument>(config.indexUid);
  let handled = 0;
  for (;;) {
    const rows = await db.catalogSearchOutbox.findMany({ orderBy: { id: "asc" }, take: BATCH });
    const last = rows.at(-1);
    if (!last) return handled;
    const ids = [...new Set(rows.map((r) => r.productId))];
    const docs = await loadDocuments(ids);
    const present = new Set(docs.map((d) => d.id));
    const gone = ids.filter((id) => !present.has(id));
    if (docs.length > 0) await index.addDocuments(docs, { primaryKey: "id" }).waitTask(TASK_WAIT);
    if (gone.length > 0) await index.deleteDocuments(gone).waitTask(TASK_WAIT);
    await db.catalogSearchOutbox.deleteMany({ where: { id: { lte: last.id } } });
    handled += ids.length;
  }
};

export type ReindexProgress = { done: number; total: number };

/**
 * Rebuilds the index from the database: turns the outbox on (so changes made during the rebuild are queued),
 * pushes the settings, replaces every document in batches of 1,000 (reporting progress), then drains the outbox.
 */
export const reindex = async (
  config: MeiliConfig,
  onProgress: (progress: ReindexProgress) => void = () => {},
): Promise<ReindexProgress> => {
  const db = await getDb();
  await db.catalogSearchState.update({ where: { id: 1 }, data: { outboxEnabled: true } });
  const index = clientFor(config).index<MeiliDocument>(config.indexUid);
  await index.updateSettings(INDEX_SETTINGS).waitTask(TASK_WAIT);
  await index.deleteAllDocuments().waitTask(TASK_WAIT);
  // The count is a snapshot: products created or deleted while the rebuild runs move the real figure, so the
  // total never reads below what is done and the last report is exact (the outbox catches those changes up).
  let total = await db.catalogSearchDocument.count({ where: { priceMin: { not: null } } });
  let done = 0;
  let after = "";
  onProgress({ done, total });
  for (;;) {
    const rows = await db.$queryRawUnsafe<DocRow[]>(
      `${DOC_SELECT} WHERE d.price_min IS NOT NULL AND d.product_id > $1 ORDER BY d.product_id LIMIT ${BATCH}`,
      after,
    );
    const last = rows.at(-1);
    if (!last) break;
    await index.addDocuments(rows.map(toDocument), { primaryKey: "id" }).waitTask(TASK_WAIT);
    done += rows.length;
    total = Math.max(total, done);
    after = last.product_id;
    onProgress({ done, total });
  }
  if (total !== done) {
    total = done;
    onProgress({ done, total });
  }
  await drainOutbox(config);
  return { done, total };
};

/** A Meilisearch filter string literal: double quotes with `"` and `\` escaped (documented filter syntax). */
export const quote = (value: string): string => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

const sellerStoreIds = async (seller: string): Promise<string[]> => {
  const db = await getDb();
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    sellerStoresSql("$1", "$2"),
    likePattern(seller),
    seller.toLowerCase(),
  );
  return rows.map((r) => r.id);
};

const Position = z.union([
  z.object({ o: z.number().int().min(0).max(100_000) }),
  z.object({ k: z.number(), s: z.number().int() }),
]);

/** Filter expression for a request (all values quoted; arrays expand to OR groups). */
export const buildFilter = async (request: SearchRequest): Promise<string[]> => {
  const f = request.filters;
  const price = f.available ? "price_min_available" : "price_min";
  const filter: string[] = [`${price} EXISTS`, `${price} IS NOT NULL`];
  if (f.available) filter.push("available = true");
  if (request.storeId) filter.push(`store_id = ${quote(request.storeId)}`);
  if (f.currency) filter.push(`currency = ${quote(f.currency)}`);
  if (f.priceMin !== null) filter.push(`${price} >= ${f.priceMin}`);
  if (f.priceMax !== null) filter.push(`${price} <= ${f.priceMax}`);
  for (const tag of f.tags) filter.push(`tags = ${quote(tag)}`);
  for (const a of f.attributes) filter.push(`attribute_pairs = ${quote(`${a.name}=${a.value}`)}`);
  if (f.payment.length > 0) filter.push(`payment IN [${f.payment.map(quote).join(", ")}]`);
  if (f.categories.length > 0) {
    filter.push(`(${f.categories.map((c) => `category_words = ${quote(c)}`).join(" OR ")})`);
  }
  if (f.seller !== null) {
    const ids = await sellerStoreIds(f.seller);
    filter.push(ids.length > 0 ? `store_id IN [${ids.map(quote).join(", ")}]` : `store_id = ""`);
  }
  return filter;
};

const facetValues = (distribution: Record<string, number> | undefined): FacetValue[] =>
  Object.entries(distribution ?? {})
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
    .slice(0, FACET_LIMIT);

export const createMeilisearchEngine = (config: MeiliConfig): SearchEngine => ({
  name: "meilisearch",
  isPosition: (after) => Position.safeParse(after).success,
  async search(request: SearchRequest): Promise<SearchPage> {
    await drainOutbox(config);
    const index = clientFor(config).index<MeiliDocument>(config.indexUid);
    const filter = await buildFilter(request);
    const price = request.filters.available ? "price_min_available" : "price_min";
    const after = request.after as { o?: number; k?: number; s?: number } | null;
    let sort: string[] | undefined;
    let keyField: "price" | "created_at" | null = null;
    if (request.sort === "price_asc" || request.sort === "price_desc") {
      const dir = request.sort === "price_asc" ? "asc" : "desc";
      sort = [`${price}:${dir}`, `seq:${dir}`];
      keyField = "price";
      if (after?.k !== undefined && after.s !== undefined) {
        const op = dir === "asc" ? ">" : "<";
        filter.push(`(${price} ${op} ${after.k} OR (${price} = ${after.k} AND seq ${op} ${after.s}))`);
      }
    } else if (request.sort === "newest") {
      sort = ["created_at:desc", "seq:desc"];
      keyField = "created_at";
      if (after?.k !== undefined && after.s !== undefined) {
        filter.push(`(created_at < ${after.k} OR (created_at = ${after.k} AND seq < ${after.s}))`);
      }
    }
    const offset = keyField === null ? (after?.o ?? 0) : 0;
    const result = await index.search(request.terms.join(" "), {
      filter,
      ...(sort ? { sort } : {}),
      offset,
      limit: request.limit + 1,
      facets: ["store_id", "categories", "payment"],
      attributesToRetrieve: [
        "id",
        "seq",
        "created_at",
        "price_min",
        "price_min_available",
        "store_slug",
        "store_name",
        "store_id",
      ],
    });
    const hits = result.hits.slice(0, request.limit);
    const last = hits.at(-1);
    const hasNext = result.hits.length > request.limit && last !== undefined;
    const next = !hasNext
      ? null
      : keyField === null
        ? { o: offset + request.limit }
        : { k: keyField === "price" ? Number(last[price]) : last.created_at, s: last.seq };
    const stores = facetValues(result.facetDistribution?.store_id);
    const names = await storeNames(stores.map((s) => s.value));
    return {
      productIds: hits.map((h) => h.id),
      next,
      totalCount: result.estimatedTotalHits ?? result.hits.length,
      facets: {
        sellers: stores.flatMap((s) => {
          const store = names.get(s.value);
          return store ? [{ value: store.slug, name: store.name, count: s.count }] : [];
        }),
        categories: facetValues(result.facetDistribution?.categories),
        payment: facetValues(result.facetDistribution?.payment),
      },
    };
  },
});

const storeNames = async (ids: readonly string[]) => {
  const db = await getDb();
  const rows = await db.store.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, slug: true, name: true },
  });
  return new Map(rows.map((r) => [r.id, r]));
};

/** The engine for the configured MEILISEARCH_URL. */
export const meilisearchEngine = (): SearchEngine => createMeilisearchEngine(meiliConfigFromEnv());
