-- A store's accepted coins are our symbols, in the store's order; their types and decimals come from our coin
-- table for the network the store settles on (lib/payments/crypto/coins.ts). Older rows held objects. The search
-- documents' payment values read either form (first), then the rows are converted (their stores' products are
-- re-indexed by the stores trigger).
CREATE OR REPLACE FUNCTION catalog_search_refresh(ids text[]) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;

  DELETE FROM "catalog_search_documents" d
  WHERE d."product_id" = ANY (ids)
    AND NOT EXISTS (SELECT 1 FROM "variants" x WHERE x."product_id" = d."product_id");

  INSERT INTO "catalog_search_documents" AS d (
    "product_id", "store_id", "store_slug", "store_name", "title", "created_at", "currency", "price_min",
    "price_min_available", "available", "tags", "categories", "category_text", "attributes", "payment", "document"
  )
  SELECT
    p."id", p."store_id", s."slug", s."name", p."title", p."created_at", v.currency, v.price_min,
    v.price_min_available, coalesce(v.available, false),
    ARRAY(SELECT lower(t) FROM unnest(p."tags") t),
    p."categories",
    lower(array_to_string(p."categories", ' | ')),
    CASE WHEN jsonb_typeof(p."attributes") = 'array' THEN p."attributes" ELSE '[]'::jsonb END,
    array_remove(ARRAY[
      CASE WHEN s."card_enabled" THEN 'svc.card' END,
      CASE WHEN s."crypto_enabled" THEN 'svc.crypto' END
    ], NULL)
    || CASE WHEN s."crypto_enabled" AND jsonb_typeof(s."accepted_coins") = 'array'
         THEN ARRAY(SELECT lower(coalesce(c ->> 'symbol', c #>> '{}')) FROM jsonb_array_elements(s."accepted_coins") c
                    WHERE jsonb_typeof(c) = 'string' OR c ->> 'symbol' IS NOT NULL)
         ELSE ARRAY[]::text[] END,
    setweight(to_tsvector('english', p."title"), 'A')
    || setweight(to_tsvector('english', array_to_string(p."tags", ' ') || ' ' ||
                                        array_to_string(p."categories", ' ')), 'B')
    || setweight(to_tsvector('english', coalesce(attr.text, '') || ' ' || s."name"), 'C')
    || setweight(to_tsvector('english', p."description_text"), 'D')
  FROM "products" p
  JOIN "stores" s ON s."id" = p."store_id"
  LEFT JOIN LATERAL (
    SELECT min(x."price_minor") AS price_min,
           min(x."price_minor") FILTER (WHERE x."inventory" > 0) AS price_min_available,
           bool_or(x."inventory" > 0) AS available,
           min(x."currency") AS currency
    FROM "variants" x WHERE x."product_id" = p."id"
  ) v ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(a ->> 'value', ' ') AS text
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p."attributes") = 'array' THEN p."attributes"
                                   ELSE '[]'::jsonb END) a
  ) attr ON true
  WHERE p."id" = ANY (ids) AND v.price_min IS NOT NULL
  ON CONFLICT ("product_id") DO UPDATE SET
    "store_id" = EXCLUDED."store_id", "store_slug" = EXCLUDED."store_slug", "store_name" = EXCLUDED."store_name",
    "title" = EXCLUDED."title", "created_at" = EXCLUDED."created_at", "currency" = EXCLUDED."currency",
    "price_min" = EXCLUDED."price_min", "price_min_available" = EXCLUDED."price_min_available",
    "available" = EXCLUDED."available", "tags" = EXCLUDED."tags", "categories" = EXCLUDED."categories",
    "category_text" = EXCLUDED."category_text", "attributes" = EXCLUDED."attributes",
    "payment" = EXCLUDED."payment", "document" = EXCLUDED."document";

  INSERT INTO "catalog_search_terms" ("word")
  SELECT DISTINCT w
  FROM "products" p
  JOIN "stores" s ON s."id" = p."store_id",
  LATERAL regexp_split_to_table(
    lower(p."title" || ' ' || array_to_string(p."tags", ' ') || ' ' || array_to_string(p."categories", ' ') || ' '
          || s."name" || ' ' || p."description_text"),
    '[^[:alnum:]]+') w
  WHERE p."id" = ANY (ids) AND length(w) BETWEEN 3 AND 40
  ON CONFLICT ("word") DO NOTHING;

  IF (SELECT "outbox_enabled" FROM "catalog_search_state" WHERE "id" = 1) THEN
    INSERT INTO "catalog_search_outbox" ("product_id") SELECT DISTINCT unnest(ids);
  END IF;
END;
$fn$;

UPDATE "stores"
SET "accepted_coins" = (
  SELECT COALESCE(jsonb_agg(e -> 'symbol' ORDER BY o), '[]'::jsonb)
  FROM jsonb_array_elements("accepted_coins") WITH ORDINALITY AS t(e, o)
  WHERE jsonb_typeof(e -> 'symbol') = 'string'
)
WHERE jsonb_typeof("accepted_coins") = 'array'
  AND EXISTS (SELECT 1 FROM jsonb_array_elements("accepted_coins") e WHERE jsonb_typeof(e) = 'object');
