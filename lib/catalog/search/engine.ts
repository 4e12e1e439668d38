import type { SortOrder } from "./schemas";

// The search engine port (STYLE.md §1.6: side effects behind interfaces). search_catalog normalises the request,
// asks the engine for one page of product ids with their sort keys, and renders the products itself; an engine
// never shapes wire JSON. Two engines: PostgreSQL full-text search (postgres.ts, the default, same SQL on PGlite and
// PostgreSQL) and Meilisearch (meilisearch.ts, when MEILISEARCH_URL is set). Both pass e2e/api/catalog/contract.

/** Filters after validation: lower-cased where matching is case-insensitive, defaults applied. */
export type NormalizedFilters = {
  priceMin: number | null;
  priceMax: number | null;
  /** Only products priced in this currency (from filters.price.currency or context.currency). */
  currency: string | null;
  /** Any of these (fuzzy partial match on the taxonomy path), lower-cased. */
  categories: string[];
  /** All of these, lower-cased. */
  tags: string[];
  /** All of these pairs, exact. */
  attributes: { name: string; value: string }[];
  seller: string | null;
  /** true (default) = only products with a variant in stock. */
  available: boolean;
  /** Any of these rails or coin symbols, lower-cased. */
  payment: string[];
};

export type SearchRequest = {
  /** Query words (lower-cased, at most QUERY_MAX_TERMS); empty = browse. */
  terms: string[];
  filters: NormalizedFilters;
  sort: SortOrder;
  limit: number;
  /** The engine's own position after the last hit of the previous page (from the verified cursor). */
  after: unknown;
  /** Per-store surfaces scope the search to one store. */
  storeId: string | null;
};

export type FacetValue = { value: string; count: number; name?: string };
export type Facets = { categories: FacetValue[]; sellers: FacetValue[]; payment: FacetValue[] };

export type SearchPage = {
  productIds: string[];
  /** Position after the last hit, for the next cursor; null when there is no next page. */
  next: unknown;
  totalCount: number;
  facets: Facets;
};

export interface SearchEngine {
  /** Goes into cursors: a cursor of one engine is refused by another. */
  readonly name: string;
  search(request: SearchRequest): Promise<SearchPage>;
  /** Validates the `after` of a verified cursor (shape only); false → invalid cursor. */
  isPosition(after: unknown): boolean;
}

/** How many facet values of each kind a response lists (most frequent first). */
export const FACET_LIMIT = 20;
