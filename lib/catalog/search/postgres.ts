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

/**
 * The relevance keyset, after a cursor's position: a lower rank, or the same rank and a greater id (ranks descend, ids
 * ascend). The float4 rank travels as its exact text form.
 */
const afterRank = (params: Params, rank: string, id: string, after: { r: string; id: string }): string =>
  `(${rank} < ${bind(params, after.r)}::real OR (${rank} = ${bind(params, after.r)}::real AND ${id} > ${bind(params, after.id)}))`;

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

/** The category texts a `filters.categories` names, as SQL of an array (null without that filter). */
const categoryTextsSql = (params: Params, categories: readonly string[]): string | null => {
  if (categories.length === 0) return null;
  // partial match; the trigram word similarity only when no category anywhere contains the text (a typo). Both
  // are asked of the few dozen known category texts (every document's is among them), not of each document: the
  // documents' condition is then one of those texts, which their category index finds and a word's index joins
  // (BitmapAnd: 1.5 ms for "socks" in "hiking poles", 19 ms when each match was tested with ILIKE); a scan of the
  // documents for "no category contains it" took ~180 ms for a text that is common but stored late
  const any = categories.map((c) => {
    const term = bind(params, c);
    const pattern = bind(params, likePattern(c));
    return `SELECT c.category_text FROM catalog_search_categories c
        WHERE c.category_text ILIKE ${pattern}
           OR (NOT EXISTS (SELECT 1 FROM catalog_search_categories y
                 WHERE y.category_text ILIKE ${pattern}
                   AND EXISTS (SELECT 1 FROM catalog_search_documents x WHERE x.category_text = y.category_text))
               AND ${term} <% c.category_text)`;
  });
  // UNION: a text two values name comes once (a price browse walks each text; see pageQuery)
  return `ARRAY(${any.join(" UNION ")})`;
};

const inCategories = (texts: string): string => `d.category_text = ANY (${texts})`;

const filterClauses = (
  params: Params,
  request: SearchRequest,
): { where: string[]; categories: string | null } => {
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
  const categories = categoryTextsSql(params, f.categories);
  if (categories) where.push(inCategories(categories));
  if (f.seller !== null) {
    // the stores first, as an array: each match is then compared with it, not joined (17 ms against 31 for the
    // 30,000 matches of "hiking")
    where.push(
      `d.store_id = ANY (ARRAY(${sellerStoresSql(bind(params, likePattern(f.seller)), bind(params, f.seller.toLowerCase()))}))`,
    );
  }
  return { where, categories };
};

/**
 * `where`: every condition; `filters`: the same without the word match; `tsq`: the SQL of the tsquery;
 * `singleWord`: one word without alternatives (see TITLE_TIER_RANK); `alternatives`: the one word's group when it
 * has alternatives (a word to correct, see correctedWordPage).
 */
type Plan = {
  params: Params;
  where: string[];
  filters: string[];
  /** The category texts of `filters.categories` (SQL of an array), or null. */
  categories: string | null;
  rankSql: string | null;
  tsq: string | null;
  singleWord: boolean;
  alternatives: string[] | null;
};

const plan = (request: SearchRequest, groups: string[][], mode: Mode): Plan => {
  const params: Params = [];
  const { where: filters, categories } = filterClauses(params, request);
  if (groups.length === 0)
    return {
      params,
      where: filters,
      filters,
      categories,
      rankSql: null,
      tsq: null,
      singleWord: false,
      alternatives: null,
    };
  const tsq = tsqueryExpression(params, groups, mode);
  return {
    params,
    where: [...filters, `d.document @@ (${tsq})`],
    filters,
    categories,
    // ts_rank is float4; it travels in cursors as its exact text form
    rankSql: `ts_rank(d.document, ${tsq})`,
    tsq,
    singleWord: groups.length === 1 && groups[0]!.length === 1,
    alternatives: groups.length === 1 && groups[0]!.length > 1 ? groups[0]! : null,
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
    const keyset = after ? `WHERE ${afterRank(params, "k", "id", after as { r: string; id: string })}` : "";
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
  if (p.tsq === null && p.categories && (request.sort === "price_asc" || request.sort === "price_desc")) {
    // A category browse by price: each of its category texts walked in its own price order (the category's price
    // index), the walks merged. The price index alone went through every other category's products first: the
    // dearest products of a catalog are of a few categories ("Home & Garden", dearest first, filtered 5,477
    // rows for a page: 20 ms).
    const inCategory = inCategories(p.categories);
    const outer = request.sort === "price_asc" ? "x.k ASC, x.id ASC" : "x.k DESC, x.id DESC";
    return {
      sql: `SELECT x.id, x.k FROM unnest(${p.categories}) AS c(text) CROSS JOIN LATERAL (
              SELECT d.product_id AS id, ${key} AS k FROM catalog_search_documents d
              WHERE ${["d.category_text = c.text", ...where.filter((w) => w !== inCategory), ...keyset].join(" AND ")}
              ORDER BY ${order} LIMIT ${limit}) x
            ORDER BY ${outer} LIMIT ${limit}`,
      params,
      walk: null,
    };
  }
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

/**
 * How many of a word's title rows a one-word page reads in rank order before ranking the title matches instead:
 * enough for a store's own search (its share of a word's rows is 8-30 % in the bench catalog), fewer when a filter
 * narrows the search (a walk that fills no page is wasted: ~10 µs a row).
 */
const TITLE_WALK_ROWS = 200;
const TITLE_WALK_ROWS_FILTERED = 50;

/** A filter beyond the store's scope and the stock: a price, currency, tag, category, attribute, seller or rail. */
const narrowed = (f: SearchRequest["filters"]): boolean =>
  f.priceMin !== null ||
  f.priceMax !== null ||
  f.currency !== null ||
  f.tags.length > 0 ||
  f.categories.length > 0 ||
  f.attributes.length > 0 ||
  f.seller !== null ||
  f.payment.length > 0;

/**
 * The title tier's page read from catalog_search_title_terms: the word's rows in rank order (the rank a search of
 * that one word gives each document, kept by triggers), at most TITLE_WALK_ROWS (TITLE_WALK_ROWS_FILTERED) of them
 * after the cursor, then the filters. The same rows, ranks and order as ranking every title match, since a
 * one-lexeme query matches a title exactly when the lexeme is one of its rows. `rows` is null when that cannot
 * answer: the word is not exactly one lexeme, or the walk stopped at its bound before the page was full (selective
 * filters); the caller then ranks the matches. `known`: knownWords' vocabulary check (true without it), made by the
 * same statement.
 */
const titleWalk = async (
  request: SearchRequest,
  knownWords: readonly string[] | null,
  after: { r: string; id: string } | null,
  limit: number,
): Promise<{ rows: Row[] | null; known: boolean }> => {
  const db = await getDb();
  // the filters alone: the word is matched by the walk (a title row implies a match of the document)
  const params: Params = [];
  const { where } = filterClauses(params, request);
  const word = bind(params, request.terms[0]);
  const known = knownWords ? knownWordsSql(params, knownWords) : "true";
  const position = after ? `AND ${afterRank(params, "t.rank", "t.product_id", after)}` : "";
  const bound = narrowed(request.filters) ? TITLE_WALK_ROWS_FILTERED : TITLE_WALK_ROWS;
  const lexeme = "(SELECT l FROM lexeme)";
  const walk = (columns: string, order: string) =>
    `SELECT ${columns} FROM catalog_search_title_terms t WHERE t.lexeme = ${lexeme} ${position} ${order} LIMIT ${bound}`;
  // the page's rows come from the walk in its order, each document probed by its key until the page is full: the
  // walk is a subquery with its own ORDER BY and LIMIT, whose order the join keeps (a CTE would lose it and probe all)
  const rows = await searchQuery<(Row & { complete: boolean; known: boolean })[]>(
    db,
    `WITH lexeme AS (
       SELECT (SELECT ls[1] FROM (SELECT tsvector_to_array(to_tsvector('english', ${word})) AS ls) x
               WHERE cardinality(ls) = 1) AS l)
     SELECT page.id, page.k::text AS k, s.complete, s.known
     FROM (SELECT ${lexeme} IS NOT NULL AND count(*) < ${bound} AS complete, ${known} AS known
           FROM (${walk("1", "")}) c) s
     LEFT JOIN (
       SELECT w.product_id AS id, w.rank AS k
       FROM (${walk("t.product_id, t.rank", "ORDER BY t.rank DESC, t.product_id ASC")}) w
       JOIN catalog_search_documents d ON d.product_id = w.product_id
       WHERE ${where.join(" AND ")}
       ORDER BY w.rank DESC, w.product_id ASC LIMIT ${bind(params, limit)}) page ON true
     ORDER BY page.k DESC, page.id ASC`,
    ...params,
  );
  const page = rows.filter((r) => r.id !== null).map(({ id, k }) => ({ id, k }));
  return { rows: page.length >= limit || rows[0]!.complete ? page : null, known: rows[0]!.known };
};

/**
 * A page, and whether it is the answer even when empty: a page of the words taken as known (search's first attempt)
 * is not when they turn out not to be.
 */
type Page = { rows: Row[]; definitive: boolean };

/**
 * A relevance page of a one-word search, title matches first (see TITLE_TIER_RANK); null when not applicable. With
 * `knownWords` (search's first attempt, the word taken as known), the title walk's statement also says whether it is
 * in the vocabulary: when it is not, the page is empty and not definitive (a word to correct: the full path); when it
 * is, the page is the full path's page (no alternatives, one word), so it is definitive even when empty.
 */
const tieredRelevancePage = async (
  p: Plan,
  request: SearchRequest,
  knownWords: readonly string[] | null,
): Promise<Page | null> => {
  if (request.sort !== "relevance" || !p.singleWord || !p.tsq) return null;
  const db = await getDb();
  const after = request.after as { r: string; id: string } | null;
  const want = request.limit + 1;
  let check = knownWords;
  const tier = async (inTitle: boolean, keyset: boolean, limit: number): Promise<Row[]> => {
    const params = [...p.params];
    const title = `d.title_document @@ (${p.tsq})`;
    const where = [...p.where, inTitle ? title : `NOT coalesce(${title}, false)`];
    if (check) where.push(knownWordsSql(params, check));
    const inner = `SELECT d.product_id AS id, (${p.rankSql}) AS k FROM catalog_search_documents d WHERE ${where.join(" AND ")}`;
    const position = keyset && after ? `WHERE ${afterRank(params, "k", "id", after)}` : "";
    return searchQuery<Row[]>(
      db,
      `SELECT id, k::text AS k FROM (${inner}) m ${position} ORDER BY m.k DESC, m.id ASC LIMIT ${bind(params, limit)}`,
      ...params,
    );
  };
  const fromTitle = after === null || Number(after.r) >= TITLE_TIER_RANK;
  let first: Row[] = [];
  if (fromTitle) {
    const walked = await titleWalk(request, check, after, want);
    if (!walked.known) return { rows: [], definitive: false };
    check = null;
    first = walked.rows ?? (await tier(true, true, want));
  }
  if (first.length >= want) return { rows: first, definitive: true };
  // every second-tier rank is below any first-tier position, so a cursor from the first tier bounds nothing there
  const rows = [...first, ...(await tier(false, !fromTitle, want - first.length))];
  // a cursor in the second tier: an empty page with the check in its statement may be a word to correct
  return { rows, definitive: check === null || rows.length > 0 };
};

/** How many title rows of each lexeme a corrected word's page reads (each is probed for the filters). */
const CORRECTED_WALK_ROWS = 100;

/**
 * A relevance page of one word with alternatives (a word to correct), which used to rank every match of all of them:
 * 14,700 documents for "wahed" → washed, waxed, water. TITLE_TIER_RANK's bound over k lexemes: ts_rank of an OR of
 * k lexemes is the sum of each present lexeme's one-lexeme score divided by k, so a document with any of them in its
 * title scores ≥ 0.61/k, and one with exactly one of them, not in its title, < 0.47/k. Every document scoring
 * ≥ 0.5/k therefore has a title match or two of the lexemes. The page is taken from:
 * - the documents with two of the lexemes (an AND of each pair; few), ranked, those ≥ 0.5/k;
 * - the others with a title match: one lexeme only, so their rank is that lexeme's one-word rank / k (its title row,
 *   catalog_search_title_terms; the float4 division ts_rank makes), the first CORRECTED_WALK_ROWS of each lexeme in
 *   the order of that rank and the id (not the index's: two one-word ranks may give one rank once divided).
 * Null when that is not provably the page ranking every match gives — the page is not full (a rare word, a cursor
 * below the bound), or a lexeme's rows left unread could come before its last row — and the caller ranks them all.
 */
const correctedWordPage = async (p: Plan, request: SearchRequest): Promise<Row[] | null> => {
  if (request.sort !== "relevance" || !p.alternatives || !p.tsq || !p.rankSql) return null;
  const db = await getDb();
  const params = [...p.params];
  const after = request.after as { r: string; id: string } | null;
  const position = (rank: string, id: string) => (after ? `AND ${afterRank(params, rank, id, after)}` : "");
  const want = request.limit + 1;
  // k as ts_rank counts it: the distinct lexemes of the query (a stop word has none; two words may share a stem,
  // "bottle" and "bottles"); the pairs are of distinct lexemes (a pair of one stem would be every match)
  const rows = await searchQuery<(Row & { exact: boolean })[]>(
    db,
    `WITH lexemes AS (
       SELECT DISTINCT l FROM jsonb_array_elements_text(${bind(params, JSON.stringify(p.alternatives))}::jsonb) a,
              unnest(tsvector_to_array(to_tsvector('english', a))) l),
     lex AS (
       SELECT array_agg(l) AS ls, count(*)::int AS n,
              (SELECT string_agg(catalog_search_lexeme_query(x.l)::text || ' & ' || catalog_search_lexeme_query(y.l)::text,
                                 ' | ')
               FROM lexemes x, lexemes y WHERE x.l < y.l)::tsquery AS pairs
       FROM lexemes),
     walk AS (
       SELECT x.product_id, x.k, x.nth
       FROM lex, unnest(lex.ls) AS w(lexeme), LATERAL (
         SELECT y.product_id, y.k, row_number() OVER (ORDER BY y.k DESC, y.product_id ASC) AS nth
         FROM (SELECT t.product_id, (t.rank::float8 / lex.n)::real AS k
               FROM catalog_search_title_terms t
               WHERE t.lexeme = w.lexeme ${position("(t.rank::float8 / lex.n)::real", "t.product_id")}
               ORDER BY k DESC, t.product_id ASC LIMIT ${CORRECTED_WALK_ROWS}) y) x),
     candidates AS (
       SELECT w.product_id AS id, w.k FROM walk w
       JOIN catalog_search_documents d ON d.product_id = w.product_id
       WHERE ${p.filters.join(" AND ")} AND NOT coalesce(d.document @@ (SELECT pairs FROM lex), false)
       UNION ALL
       SELECT m.id, m.k FROM (
         SELECT d.product_id AS id, (${p.rankSql}) AS k FROM catalog_search_documents d
         WHERE ${p.filters.join(" AND ")} AND d.document @@ (SELECT pairs FROM lex)) m
       WHERE m.k >= (0.5 / (SELECT nullif(n, 0) FROM lex))::real ${position("m.k", "m.id")}),
     page AS (SELECT id, k FROM candidates ORDER BY k DESC, id ASC LIMIT ${bind(params, want)}),
     last AS (SELECT id, k FROM page ORDER BY k ASC, id DESC LIMIT 1)
     SELECT page.id, page.k::text AS k,
            -- each lexeme whose walk stopped at its bound stopped at or after the page's last row
            NOT EXISTS (SELECT 1 FROM walk b, last
                        WHERE b.nth = ${CORRECTED_WALK_ROWS}
                          AND NOT (last.k > b.k OR (last.k = b.k AND last.id <= b.product_id))) AS exact
     FROM page ORDER BY page.k DESC, page.id ASC`,
    ...params,
  );
  return rows.length >= want && rows[0]!.exact ? rows.map(({ id, k }) => ({ id, k })) : null;
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
    const pageOf = async (p: Plan, knownWords: readonly string[] | null): Promise<Page> =>
      (await tieredRelevancePage(p, request, knownWords)) ?? {
        rows:
          (await correctedWordPage(p, request)) ??
          (await sortedPage(pageQuery(p, request, knownWords), request.limit)),
        definitive: false,
      };
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
    // An empty page (a word to correct, no match of all words, or no match at all) takes the full path, unless its
    // statement showed the one word to be known (tieredRelevancePage): then the empty page is the answer.
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
      const page = await pageOf(p0, request.terms);
      if (page.rows.length > 0 || page.definitive) return result(page.rows, mode0, await summary0);
    }
    const groups = await expandTerms(request.terms);
    let mode: Mode = mode0;
    let p = plan(request, groups, mode);
    if (!after && groups.length > 1 && !(await hasAny(p))) {
      mode = "any";
      p = plan(request, groups, mode);
    }
    const same = JSON.stringify([p.where, p.params]) === JSON.stringify([p0.where, p0.params]);
    const [page, summary] = await Promise.all([pageOf(p, null), same ? summary0 : countAndFacets(p)]);
    return result(page.rows, mode, summary);
  },
};
