import { z } from "zod";

// Input schemas of search_catalog and lookup_catalog (UCP catalog_search.json / catalog_lookup.json plus the seed's
// extensions: sort, filters.tags/attributes/seller/available/payment). Every text field is bounded so that no
// input can make a slow query (issue #3 "Bad input"); unknown keys are refused with their JSONPath rather than
// silently ignored, so an agent learns that a filter did nothing.

/** Page size: UCP default 10; larger pages up to this maximum; above it → invalid_request (docs/search.md). */
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;
/** Longest accepted query string (characters) and the number of words used from it. */
export const QUERY_MAX_LENGTH = 256;
export const QUERY_MAX_TERMS = 12;
/** Lookup batch size (UCP: at least 10; over it → request_too_large). */
export const LOOKUP_MAX_IDS = 50;

const INT4_MAX = 2_147_483_647;

const text = (max: number) => z.string().trim().min(1, "must not be empty").max(max);
const minorUnits = z.number().int("must be an integer in minor units").min(0).max(INT4_MAX);
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, "must be an ISO 4217 code such as USD")
  .transform((c) => c.toUpperCase());

export const SORTS = ["relevance", "price_asc", "price_desc", "newest"] as const;
export type SortOrder = (typeof SORTS)[number];

export const SearchFiltersSchema = z
  .object({
    /** UCP search_filters.price: minor units; currency from here or context.currency. */
    price: z
      .object({ min: minorUnits.optional(), max: minorUnits.optional(), currency: currency.optional() })
      .strict()
      .optional(),
    /** Fuzzy partial match on the taxonomy path; several values = any of them. */
    categories: z.array(text(200)).max(10).optional(),
    /** Exact tags, case-insensitive; several values = all of them. */
    tags: z.array(text(100)).max(10).optional(),
    /** Exact {name, value} pairs; several pairs = all of them. */
    attributes: z
      .array(z.object({ name: text(100), value: text(200) }).strict())
      .max(10)
      .optional(),
    /** Fuzzy on the store's slug, name or description. */
    seller: text(200).optional(),
    /** Default true (hide out-of-stock products); false includes them. */
    available: z.boolean().optional(),
    /** Payment rails (svc.card, svc.crypto) or coin symbols (USDC, SUI); several values = any of them. */
    payment: z.array(text(40)).max(10).optional(),
  })
  .strict();
export type SearchFilters = z.infer<typeof SearchFiltersSchema>;

const ucpObject = z.record(z.string(), z.unknown());

export const SearchInputSchema = z
  .object({
    query: z.string().max(QUERY_MAX_LENGTH, `at most ${QUERY_MAX_LENGTH} characters`).optional(),
    filters: SearchFiltersSchema.optional(),
    sort: z.enum(SORTS).optional(),
    pagination: z
      .object({
        limit: z
          .number()
          .int()
          .min(1, "must be at least 1")
          .max(SEARCH_LIMIT_MAX, `the maximum page size is ${SEARCH_LIMIT_MAX}`)
          .optional(),
        cursor: z.string().min(1).max(2048).optional(),
      })
      .strict()
      .optional(),
    context: z.object({ currency: currency.optional() }).catchall(z.unknown()).optional(),
    signals: ucpObject.optional(),
    attribution: ucpObject.optional(),
  })
  .strict();
export type SearchInput = z.infer<typeof SearchInputSchema>;

export const LookupInputSchema = z
  .object({
    ids: z.array(z.string().trim().min(1).max(200)).min(1, "send at least one id"),
    context: z.object({ currency: currency.optional() }).catchall(z.unknown()).optional(),
    signals: ucpObject.optional(),
    attribution: ucpObject.optional(),
  })
  .strict();
export type LookupInput = z.infer<typeof LookupInputSchema>;
