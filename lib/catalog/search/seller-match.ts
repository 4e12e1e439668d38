// filters.seller (seed §2: fuzzy on slug, name or description), shared by both engines: the stores whose slug, name
// or description contains the text; only when none does, the stores whose name or slug is close to it (pg_trgm word
// similarity, for typos). Exact containment first keeps "acme-north" from also matching "acme-south".

/** `%`, `_` and `\` are LIKE metacharacters: a seller named "100%" must match literally. */
export const likePattern = (value: string): string => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** SQL selecting store ids; `pattern` and `term` are bound parameter placeholders ($n). */
export const sellerStoresSql = (pattern: string, term: string): string =>
  `WITH partial AS (SELECT s.id FROM stores s
     WHERE s.slug ILIKE ${pattern} OR s.name ILIKE ${pattern} OR s.description ILIKE ${pattern})
   SELECT id FROM partial
   UNION ALL
   SELECT s.id FROM stores s
   WHERE NOT EXISTS (SELECT 1 FROM partial) AND (${term} <% lower(s.name) OR ${term} <% s.slug)`;
