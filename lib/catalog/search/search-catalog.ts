import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation, type OperationContext } from "@/lib/core/operation";
import { SearchOutputSchema } from "@/lib/ucp/output-schemas";

import { productToWire } from "../to-wire";
import { decodeCursor, encodeCursor, searchFingerprint } from "./cursor";
import type { Facets, NormalizedFilters, SearchEngine, SearchRequest } from "./engine";
import { inStockFirst, loadProducts } from "./load-products";
import {
  QUERY_MAX_TERMS,
  SEARCH_LIMIT_DEFAULT,
  SearchInputSchema,
  type SearchInput,
  type SortOrder,
} from "./schemas";
import { getSearchEngine } from "./select-engine";

// search_catalog (UCP catalog search; seed §2 "Search request fields" / "Search response"): full-text query and
// filters over every store (global surfaces) or one store (/s/<slug>/…), one page of UCP products, an opaque
// cursor, total_count and facets whose values work as filters. The engine (engine.ts) finds the ids; this file
// owns the request rules and the wire shape.

/** Words of the query: lower-cased letters and digits; everything else (SQL, regex, quotes) separates words. */
export const queryTerms = (query: string | undefined): string[] => {
  const words = (query ?? "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.slice(0, 40));
  return [...new Set(words)].slice(0, QUERY_MAX_TERMS);
};

const normalizeFilters = (input: SearchInput): NormalizedFilters => {
  const f = input.filters ?? {};
  const lower = (values: readonly string[] | undefined) => [
    ...new Set((values ?? []).map((v) => v.toLowerCase())),
  ];
  return {
    priceMin: f.price?.min ?? null,
    priceMax: f.price?.max ?? null,
    currency: f.price ? (f.price.currency ?? input.context?.currency ?? null) : null,
    categories: lower(f.categories),
    tags: lower(f.tags),
    attributes: f.attributes ?? [],
    seller: f.seller ?? null,
    available: f.available ?? true,
    payment: lower(f.payment),
  };
};

/** The normalised search and its fingerprint (what a cursor is bound to). @throws AppError invalid_request */
export const toSearchRequest = (input: SearchInput, storeId: string | null) => {
  const terms = queryTerms(input.query);
  const hasFilters = input.filters !== undefined && Object.keys(input.filters).length > 0;
  if (terms.length === 0 && !hasFilters) {
    const blankQuery = input.query !== undefined && input.query.trim() !== "";
    throw new AppError(
      "invalid_request",
      blankQuery
        ? "query has no words to search for: add a word or a filter"
        : "A search needs a query and/or filters (pagination alone is not a search)",
      { path: blankQuery ? "$.query" : "$" },
    );
  }
  if (input.sort === "relevance" && terms.length === 0) {
    throw new AppError("invalid_request", "sort relevance needs a query", { path: "$.sort" });
  }
  const sort: SortOrder = input.sort ?? (terms.length > 0 ? "relevance" : "newest");
  const filters = normalizeFilters(input);
  const fingerprint = searchFingerprint({ terms, filters, sort, storeId });
  return { terms, filters, sort, fingerprint };
};

const wireFacets = (facets: Facets) => ({
  categories: facets.categories.map(({ value, count }) => ({ value, count })),
  sellers: facets.sellers.map(({ value, count, name }) => ({ value, name: name ?? value, count })),
  payment: facets.payment.map(({ value, count }) => ({
    value: value.startsWith("svc.") ? value : value.toUpperCase(),
    count,
  })),
});

/** Runs a search on `engine` and renders the UCP response body. */
export const runSearch = async (
  ctx: Pick<OperationContext, "store" | "baseUrl" | "ucpVersion">,
  input: SearchInput,
  engine: SearchEngine = getSearchEngine(),
) => {
  const storeId = ctx.store?.id ?? null;
  const { terms, filters, sort, fingerprint } = toSearchRequest(input, storeId);
  const cursor = input.pagination?.cursor;
  const after = cursor ? await decodeCursor(cursor, engine.name, fingerprint) : null;
  if (cursor && !engine.isPosition(after)) {
    throw new AppError("invalid_request", "pagination.cursor is malformed: start again without a cursor", {
      path: "$.pagination.cursor",
    });
  }
  const request: SearchRequest = {
    terms,
    filters,
    sort,
    limit: input.pagination?.limit ?? SEARCH_LIMIT_DEFAULT,
    after,
    storeId,
  };
  const page = await engine.search(request);
  const rows = await loadProducts(page.productIds);
  const products = rows.map(({ store, variants, ...product }) =>
    productToWire(product, inStockFirst(variants), store, ctx.baseUrl),
  );
  const next = page.next === null ? null : await encodeCursor(engine.name, fingerprint, page.next);
  return {
    ucp: successEnvelope(["dev.ucp.shopping.catalog.search"], {}, ctx.ucpVersion),
    products,
    pagination: {
      has_next_page: next !== null,
      ...(next ? { cursor: next } : {}),
      total_count: page.totalCount,
    },
    facets: wireFacets(page.facets),
  };
};

export const searchCatalog = defineOperation({
  name: "search_catalog",
  title: "Search catalog",
  description:
    "Start here to find products. Full-text search across stores (or one store on /s/<slug>): query (word forms and small typos match) and/or filters (price in minor units with currency, categories, tags, attributes, seller, available, payment rails/coins); neither is invalid_request. sort: price_asc, price_desc, newest (relevance by default with a query); pagination {limit ≤ 50, cursor}. Facet values work as filter values. Returns products[] (variants, prices in minor units, metadata.svc_seller = the store to buy from) and pagination.cursor for the next page. Next: get_product for detail, then create_cart or create_checkout at the seller's store.",
  scope: "both",
  input: SearchInputSchema,
  output: SearchOutputSchema,
  mutates: false,
  tier: "anonymous",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "catalog",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError invalid_request (no query or filters, bad cursor) */
  run: requireCapability("dev.ucp.shopping.catalog.search", async (ctx, input) => ({
    body: await runSearch(ctx, input),
  })),
});
