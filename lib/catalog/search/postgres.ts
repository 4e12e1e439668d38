import "server-only";

import { LRUCache } from "lru-cache";
import { z } from "zod";

import { getDb, type Db } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { PLAN_PER_CALL } from "@/lib/config/statement-names";

import {
  FACET_LIMIT,
  type FacetValue,
  type SearchEngine,
  type SearchPage,
  type SearchRequest,
} from "./engine";
import { likePattern, sellerStoresSql } from "./seller-match";

// The default engine: PostgreSQL full-text search over catalog_search_documents (one row per product, kept
// current by triggers; see the catalog_search migration and docs/search.md). The same SQL runs on PGlite and on
// PostgreSQL (DECISIONS.md A). Every user value travels as a bound parameter; arrays travel as JSON text so both
// driver adapters bind them the same way.
//
// Query words: each word matches itself through English stemming (`plainto_tsquery`), and a word the catalog's
// vocabulary does not contain also matches up to three close vocabulary words (pg_trgm similarity, or a
// Levenshtein distance of 1 for 4-letter and 2 for ≥ 5-letter words: trigrams alone miss swapped letters in
// short words). All words must match; when that finds nothing, any word may match ("any" mode) and ts_rank
// puts the products matching more of them first. Pagination is keyset (sort key + product id), never OFFSET.

/**
 * A search statement: planned for its words on every call, never prepared (a rare word and a common one want
 * different plans; lib/config/statement-names.ts).
 */
const searchQuery = <T>(db: Db, sql: string, ...params: unknown[]): Promise<T> =>
  db.$queryRawUnsafe<T>(`${PLAN_PER_CALL}\n${sql}`, ...params);

const FUZZY_ALTERNATIVES = 3;
/** How long a search's total_count and facets are reused (0 = never). */
const summaryTtlMs = (): number => getEnv().SEARCH_SUMMARY_TTL_MS;

type Params = unknown[];
const bind = (params: Params, value: unknown): string => {
  params.push(value);
  return `$${params.length}`;
};
const bindTextArray = (params: Params, values: readonly string[]): string =>
  `ARRAY(SELECT jsonb_array_elements_text(${bind(params, JSON.stringify(values))}::jsonb))`;

type Mode = "all" | "any";

const RelevancePosition = z.object({
  m: z.enum(["all", "any"]),
  r: z.string().max(40),
  id: z.string().max(200),
});
const PricePosition = z.object({ p: z.number().int(), id: z.string().max(200) });
const NewestPosition = z.object({
  t: z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?$/),
  id: z.string().max(200),
});

/** Each query word with its fuzzy alternatives (only for words the vocabulary lacks). */
const expandTerms = async (terms: readonly string[]): Promise<string[][]> => {
  if (terms.length === 0) return [];
  const db = await getDb();
  const rows = await searchQuery<{ ord: number; term: string; alts: string[] | null }[]>(
    db,
    `SELECT t.ord::int AS ord, t.term,
            CASE WHEN length(t.term) < 3 OR EXISTS (SELECT 1 FROM catalog_search_terms w WHERE w.word = t.term)
                 THEN NULL
                 ELSE ARRAY(
                   SELECT w.word FROM catalog_search_terms w
                   WHERE w.word % t.term
                      OR (length(t.term) >= 4
                          AND length(w.word) BETWEEN length(t.term) - 2 AND length(t.term) + 2
                          AND levenshtein_less_equal(w.word, t.term, 2)
                              <= CASE WHEN length(t.term) >= 5 THEN 2 ELSE 1 END)
                   ORDER BY levenshtein_less_equal(w.word, t.term, 3), similarity(w.word, t.term) DESC, w.word
                   LIMIT ${FUZZY_ALTERNATIVES})
            END AS alts
     FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS t(term, ord)
     ORDER BY t.ord`,
    JSON.stringify(terms),
  );
  return rows.map((r) => [r.term, ...(r.alts ?? [])]);
};

/**
 * A page statement's condition that no query word would get fuzzy alternatives (each is shorter than 3 letters or
 * in the vocabulary: expandTerms's test), one primary-key probe per word. Uncorrelated, so PostgreSQL evaluates it
 * once before the scan (a one-time filter) and a page for a word the vocabulary lacks ends at once, empty.
 */
const knownWordsSql = (params: Params, terms: readonly string[]): string =>
  terms
    .map((term) => {
      const t = bind(params, term);
      return `(length(${t}::text) < 3 OR EXISTS (SELECT 1 FROM catalog_search_terms w WHERE w.word = ${t}::text))`;
    })
    .join(" AND ");

/** SQL of a tsquery: within a word, alternatives OR-ed; words AND-ed ("all") or OR-ed ("any"). */
const tsqueryExpression = (params: Params, groups: readonly string[][], mode: Mode): string =>
  groups
    .map((alts) => `(${alts.map((a) => `plainto_tsquery('english', ${bind(params, a)})`).join(" || ")})`)
    .join(mode === "all" ? " && " : " || ");

const filterClauses = (params: Params, request: SearchRequest): string[] => {
  const f = request.filters;
  const where = ["d.price_min IS NOT NULL"];
  if (f.available) where.push("d.available");
  if (request.storeId) where.push(`d.store_id = ${bind(params, request.storeId)}`);
  if (f.currency) where.push(`d.currency = ${bind(params, f.currency)}`);
  const price = f.available ? "d.price_min_available" : "d.price_min";
  if (f.priceMin !== null) where.push(`${price} >= ${bind(params, f.priceMin)}`);
  if (f.priceMax !== null) where.push(`${price} <= ${bind(params, f.priceMax)}`);
  if (f.tags.length > 0) where.push(`d.tags @> ${bindTextArray(params, f.tags)}`);
  if (f.payment.length > 0) where.push(`d.payment && ${bindTextArray(params, f.payment)}`);
  if (f.attributes.length > 0) {
    where.push(`d.attributes @> ${bind(params, JSON.stringify(f.attributes))}::jsonb`);
  }
  if (f.categories.length > 0) {
    // partial match; the trigram word similarity only when no category anywhere contains the text (a typo)
    const any = f.categories.map((c) => {
      const term = bind(params, c);
      const pattern = bind(params, likePattern(c));
      // "no category contains it" asks the few dozen known category texts (each confirmed by an index probe),
      // not the documents: a scan of the documents for a text that is common but stored late took ~180 ms
      return `d.category_text ILIKE ${pattern} OR (NOT EXISTS (SELECT 1 FROM catalog_search_categories c
        WHERE c.category_text ILIKE ${pattern}
          AND EXISTS (SELECT 1 FROM catalog_search_documents x WHERE x.category_text = c.category_text))
        AND ${term} <% d.category_text)`;
    });
    where.push(`(${any.join(" OR ")})`);
  }
  if (f.seller !== null) {
    where.push(
      `d.store_id IN (${sellerStoresSql(bind(params, likePattern(f.seller)), bind(params, f.seller.toLowerCase()))})`,
    );
  }
  return where;
};

/**
 * `where`: every condition; `filters`: the same without the word match; `tsq`: the SQL of the tsquery;
 * `singleWord`: one word without alternatives (see TITLE_TIER_RANK).
 */
type Plan = {
  params: Params;
  where: string[];
  filters: string[];
  rankSql: string | null;
  tsq: string | null;
  singleWord: boolean;
};

const plan = (request: SearchRequest, groups: string[][], mode: Mode): Plan => {
  const params: Params = [];
  const filters = filterClauses(params, request);
  if (groups.length === 0)
    return { params, where: filters, filters, rankSql: null, tsq: null, singleWord: false };
  const tsq = tsqueryExpression(params, groups, mode);
  return {
    params,
    where: [...filters, `d.document @@ (${tsq})`],
    filters,
    // ts_rank is float4; it travels in cursors as its exact text form
    rankSql: `ts_rank(d.document, ${tsq})`,
    tsq,
    singleWord: groups.length === 1 && groups[0]!.length === 1,
  };
};

/**
 * Ranking a common word used to score every match (31,000 documents for "trail"). For a query of one word (one
 * lexeme, no alternatives) `ts_rank` with its default weights and normalisation is (w_max + Σ other occurrences'
 * w/i²) / 1.645 over the lexeme's occurrences: a document with the word in its title (weight A = 1) scores
 * ≥ 1/1.645 ≈ 0.61, one without (weights ≤ 0.4) < 0.47. So the relevance order is exactly: the title matches
 * (found by the narrow `title_document` GIN index, 10 % of the matches for common words) ranked, then the
 * others ranked. The second tier is ranked only when the first runs out on a page.
 */
const TITLE_TIER_RANK = 0.5;

const hasAny = async (p: Plan): Promise<boolean> => {
  const db = await getDb();
  const rows = await searchQuery<unknown[]>(
    db,
    `SELECT 1 FROM catalog_search_documents d WHERE ${p.where.join(" AND ")} LIMIT 1`,
    ...p.params,
  );
  return rows.length > 0;
};

type Row = { id: string; k: string | number };

/** How many documents a newest page with query words walks in date order before sorting all matches instead. */
const SORTED_WALK_ROWS = 500;

type Statement = { sql: string; params: Params };

/**
 * The page's statement; for a newest page with query words also `walk`: the first SORTED_WALK_ROWS documents in
 * the date index's order (filters and keyset applied) tested for the words. When that finds a full page it is the
 * page (a common word — "trail" matches 31 % of the catalog — fills it in under a millisecond); otherwise the
 * GIN-found matches are sorted.
 */
const pageQuery = (
  p: Plan,
  request: SearchRequest,
  knownWords: readonly string[] | null,
): Statement & { walk: Statement | null } => {
  const params = [...p.params];
  const where = [...p.where];
  const filters = [...p.filters];
  if (knownWords) {
    const known = knownWordsSql(params, knownWords);
    where.push(known);
    filters.push(known);
  }
  const keyset: string[] = [];
  const after = request.after as Record<string, unknown> | null;
  const price = request.filters.available ? "d.price_min_available" : "d.price_min";
  // With query words, a price or newest page sorts the (GIN-found) matches instead of walking the sort index and
  // testing every row: words that sit at one end of the price range made that walk visit 45,000 rows (490 ms).
  // `+ 0` keeps the order and the keyset but is not an index expression.
  const sortKey = (column: string, zero: string) => (p.rankSql ? `(${column} + ${zero})` : column);
  let key: string;
  let order: string;
  if (request.sort === "relevance" && p.rankSql) {
    const inner = `SELECT d.product_id AS id, (${p.rankSql}) AS k FROM catalog_search_documents d WHERE ${where.join(" AND ")}`;
    const keyset = after
      ? `WHERE k < ${bind(params, after.r)}::real OR (k = ${bind(params, after.r)}::real AND id > ${bind(params, after.id)})`
      : "";
    return {
      // order by the float4 rank itself; its exact text form goes into the cursor
      sql: `SELECT id, k::text AS k FROM (${inner}) m ${keyset} ORDER BY m.k DESC, m.id ASC LIMIT ${bind(params, request.limit + 1)}`,
      params,
      walk: null,
    };
  }
  let column: string;
  let indexOrder: string;
  let walkOrder: string;
  if (request.sort === "price_asc" || request.sort === "price_desc") {
    const asc = request.sort === "price_asc";
    if (after)
      keyset.push(
        `(${price}, d.product_id) ${asc ? ">" : "<"} (${bind(params, after.p)}, ${bind(params, after.id)})`,
      );
    key = price;
    column = price;
    const by = sortKey(price, "0");
    order = asc ? `${by} ASC, d.product_id ASC` : `${by} DESC, d.product_id DESC`;
    indexOrder = asc ? `${price} ASC, d.product_id ASC` : `${price} DESC, d.product_id DESC`;
    walkOrder = asc ? "w.s ASC, w.id ASC" : "w.s DESC, w.id DESC";
  } else {
    if (after)
      keyset.push(
        `(d.created_at, d.product_id) < (${bind(params, after.t)}::timestamp(3), ${bind(params, after.id)})`,
      );
    key = "d.created_at::text";
    column = "d.created_at";
    order = `${sortKey("d.created_at", "interval '0 s'")} DESC, d.product_id DESC`;
    indexOrder = "d.created_at DESC, d.product_id DESC";
    walkOrder = "w.s DESC, w.id DESC";
  }
  const limit = bind(params, request.limit + 1);
  const walk =
    // price walks were measured to fail four times in five (price follows category in a catalog: the 500 dearest
    // documents are electronics) and then cost 10-30 ms on top; newest walks fill the page in 0.3-7 ms
    p.tsq === null || request.sort !== "newest"
      ? null
      : {
          // the outer ORDER BY re-sorts at most SORTED_WALK_ROWS rows: the order never rests on a subquery's
          sql: `SELECT w.id, w.k FROM (
                  SELECT d.product_id AS id, ${key} AS k, ${column} AS s, d.document @@ (${p.tsq}) AS hit
                  FROM catalog_search_documents d WHERE ${[...filters, ...keyset].join(" AND ")}
                  ORDER BY ${indexOrder} LIMIT ${SORTED_WALK_ROWS}) w
                WHERE w.hit
                ORDER BY ${walkOrder} LIMIT ${limit}`,
          params,
        };
  return {
    sql: `SELECT d.product_id AS id, ${key} AS k FROM catalog_search_documents d WHERE ${[...where, ...keyset].join(" AND ")}
          ORDER BY ${order} LIMIT ${limit}`,
    params,
    walk,
  };
};

/** A price/newest page: the walk first when there is one (see pageQuery), else or then the sorted matches. */
const sortedPage = async (page: Statement & { walk: Statement | null }, limit: number): Promise<Row[]> => {
  const db = await getDb();
  if (page.walk) {
    const walked = await searchQuery<Row[]>(db, page.walk.sql, ...page.walk.params);
    if (walked.length > limit) return walked;
  }
  return searchQuery<Row[]>(db, page.sql, ...page.params);
};

/** A relevance page of a one-word search, title matches first (see TITLE_TIER_RANK); null when not applicable. */
const tieredRelevancePage = async (
  p: Plan,
  request: SearchRequest,
  knownWords: readonly string[] | null,
): Promise<Row[] | null> => {
  if (request.sort !== "relevance" || !p.singleWord || !p.tsq) return null;
  const db = await getDb();
  const after = request.after as { r: string; id: string } | null;
  const want = request.limit + 1;
  const tier = async (inTitle: boolean, keyset: boolean, limit: number): Promise<Row[]> => {
    const params = [...p.params];
    const title = `d.title_document @@ (${p.tsq})`;
    const where = [...p.where, inTitle ? title : `NOT coalesce(${title}, false)`];
    if (knownWords) where.push(knownWordsSql(params, knownWords));
    const inner = `SELECT d.product_id AS id, (${p.rankSql}) AS k FROM catalog_search_documents d WHERE ${where.join(" AND ")}`;
    const position =
      keyset && after
        ? `WHERE k < ${bind(params, after.r)}::real OR (k = ${bind(params, after.r)}::real AND id > ${bind(params, after.id)})`
        : "";
    return searchQuery<Row[]>(
      db,
      `SELECT id, k::text AS k FROM (${inner}) m ${position} ORDER BY m.k DESC, m.id ASC LIMIT ${bind(params, limit)}`,
      ...params,
    );
  };
  const fromTitle = after === null || Number(after.r) >= TITLE_TIER_RANK;
  const first = fromTitle ? await tier(true, true, want) : [];
  if (first.length >= want) return first;
  // a page of words taken as known (search's first attempt) that finds no title match gives up here: most often a
  // word to correct, for which the second tier would be one more empty statement; the full path finds the page
  if (knownWords && fromTitle && first.length === 0) return [];
  // every second-tier rank is below any first-tier position, so a cursor from the first tier bounds nothing there
  return [...first, ...(await tier(false, !fromTitle, want - first.length))];
};

type GroupRow = { slug: string; name: string; categories: string[]; payment: string[]; n: number };
type Summary = {
  totalCount: number;
  facets: { sellers: FacetValue[]; categories: FacetValue[]; payment: FacetValue[] };
};

/**
 * total_count and facets describe the whole search, not a page: one scan grouped by (store, categories, payment) —
 * a few hundred groups even for the whole catalog — folded into counts here, and kept per exact SQL + parameters
 * for SEARCH_SUMMARY_TTL_MS (default 30 s) so that the following pages of the same search reuse it.
 */
const summaryCache = new LRUCache<string, Summary>({ max: 500, ttl: 60_000 });

const top = (counts: Map<string, number>, limit = FACET_LIMIT): FacetValue[] =>
  [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
    .slice(0, limit);

const countAndFacets = async (p: Plan): Promise<Summary> => {
  const key = JSON.stringify([p.where, p.params]);
  const ttl = summaryTtlMs();
  const cached = ttl > 0 ? summaryCache.get(key) : undefined;
  if (cached) return cached;
  const db = await getDb();
  const rows = await searchQuery<GroupRow[]>(
    db,
    `SELECT d.store_slug AS slug, min(d.store_name) AS name, d.categories, d.payment, count(*)::int AS n
     FROM catalog_search_documents d WHERE ${p.where.join(" AND ")}
     GROUP BY d.store_id, d.store_slug, d.categories, d.payment`,
    ...p.params,
  );
  const sellers = new Map<string, number>();
  const names = new Map<string, string>();
  const categories = new Map<string, number>();
  const payment = new Map<string, number>();
  let total = 0;
  for (const r of rows) {
    const n = Number(r.n);
    total += n;
    sellers.set(r.slug, (sellers.get(r.slug) ?? 0) + n);
    names.set(r.slug, r.name);
    for (const c of new Set(r.categories)) categories.set(c, (categories.get(c) ?? 0) + n);
    for (const x of new Set(r.payment)) payment.set(x, (payment.get(x) ?? 0) + n);
  }
  const summary: Summary = {
    totalCount: total,
    facets: {
      sellers: top(sellers).map((f) => ({ ...f, name: names.get(f.value) ?? f.value })),
      categories: top(categories),
      payment: top(payment, 100),
    },
  };
  if (ttl > 0) summaryCache.set(key, summary, { ttl });
  return summary;
};

const positionOf = (row: Row, request: SearchRequest, mode: Mode): unknown => {
  if (request.sort === "relevance" && request.terms.length > 0)
    return { m: mode, r: String(row.k), id: row.id };
  if (request.sort === "price_asc" || request.sort === "price_desc") return { p: Number(row.k), id: row.id };
  return { t: String(row.k), id: row.id };
};

export const postgresEngine: SearchEngine = {
  name: "postgres",

  isPosition: (after) =>
    RelevancePosition.safeParse(after).success ||
    PricePosition.safeParse(after).success ||
    NewestPosition.safeParse(after).success,

  async search(request: SearchRequest): Promise<SearchPage> {
    const after = request.after as { m?: Mode } | null;
    const pageOf = (p: Plan, knownWords: readonly string[] | null): Promise<Row[]> =>
      tieredRelevancePage(p, request, knownWords).then(
        (tiered) => tiered ?? sortedPage(pageQuery(p, request, knownWords), request.limit),
      );
    const result = (rows: Row[], mode: Mode, summary: Summary): SearchPage => {
      const hits = rows.slice(0, request.limit);
      const last = hits.at(-1);
      return {
        productIds: hits.map((r) => r.id),
        next: rows.length > request.limit && last ? positionOf(last, request, mode) : null,
        ...summary,
      };
    };
    // First, the page as if every word were in the vocabulary (no fuzzy alternatives) and, on a first page, in
    // "all" mode: the statement itself checks the vocabulary (knownWordsSql). A page with rows is exactly the page
    // the full path below finds — every word known means no alternatives, and a match of all words means "all"
    // mode — without its vocabulary statement (and, for several words, the check that all of them match anywhere).
    // An empty page (a word to correct, no match of all words, or no match at all) takes the full path.
    const mode0: Mode = after?.m ?? "all";
    const p0 = plan(
      request,
      request.terms.map((t) => [t]),
      mode0,
    );
    const summary0 = countAndFacets(p0);
    // awaited below only when used: a failure of an unused one (or one left behind by a failed page) must not end as
    // an unhandled rejection
    summary0.catch(() => undefined);
    if (request.terms.length > 0) {
      const rows = await pageOf(p0, request.terms);
      if (rows.length > 0) return result(rows, mode0, await summary0);
    }
    const groups = await expandTerms(request.terms);
    let mode: Mode = mode0;
    let p = plan(request, groups, mode);
    if (!after && groups.length > 1 && !(await hasAny(p))) {
      mode = "any";
      p = plan(request, groups, mode);
    }
    const same = JSON.stringify([p.where, p.params]) === JSON.stringify([p0.where, p0.params]);
    const [rows, summary] = await Promise.all([pageOf(p, null), same ? summary0 : countAndFacets(p)]);
    return result(rows, mode, summary);
  },
};
