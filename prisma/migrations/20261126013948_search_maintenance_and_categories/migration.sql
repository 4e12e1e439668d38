-- CreateTable
CREATE TABLE "catalog_search_categories" (
    "category_text" TEXT NOT NULL,

    CONSTRAINT "catalog_search_categories_pkey" PRIMARY KEY ("category_text")
);

-- AlterTable
ALTER TABLE "catalog_search_documents" ADD COLUMN     "title_document" tsvector;

-- CreateIndex
CREATE INDEX "catalog_search_documents_title_document_idx" ON "catalog_search_documents" USING GIN ("title_document");

-- CreateIndex
CREATE INDEX "catalog_search_documents_category_text_idx" ON "catalog_search_documents"("category_text");

-- ── Hand-written: the refresh also records category texts; documents are rewritten only when they change ────
-- (docs/search.md "The search document"). The body is the previous catalog_search_refresh (migration
-- store_accepted_coin_symbols) plus `title_document`, the category insert and the IS DISTINCT FROM guard on the
-- upsert.
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
    "price_min_available", "available", "tags", "categories", "category_text", "attributes", "payment", "document",
    "title_document"
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
    || setweight(to_tsvector('english', p."description_text"), 'D'),
    to_tsvector('english', p."title")
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
    "payment" = EXCLUDED."payment", "document" = EXCLUDED."document", "title_document" = EXCLUDED."title_document"
  -- a document that comes out identical is not rewritten (no dead row version, no index churn)
  WHERE (d."store_id", d."store_slug", d."store_name", d."title", d."created_at", d."currency", d."price_min",
         d."price_min_available", d."available", d."tags", d."categories", d."category_text", d."attributes",
         d."payment", d."document", d."title_document")
        IS DISTINCT FROM
        (EXCLUDED."store_id", EXCLUDED."store_slug", EXCLUDED."store_name", EXCLUDED."title", EXCLUDED."created_at",
         EXCLUDED."currency", EXCLUDED."price_min", EXCLUDED."price_min_available", EXCLUDED."available",
         EXCLUDED."tags", EXCLUDED."categories", EXCLUDED."category_text", EXCLUDED."attributes",
         EXCLUDED."payment", EXCLUDED."document", EXCLUDED."title_document");

  -- words and category texts of products that have a document: a bulk insert of products then variants splits
  -- each text once (when the variants arrive), not twice
  INSERT INTO "catalog_search_categories" ("category_text")
  SELECT DISTINCT d."category_text" FROM "catalog_search_documents" d WHERE d."product_id" = ANY (ids)
  ON CONFLICT ("category_text") DO NOTHING;

  INSERT INTO "catalog_search_terms" ("word")
  SELECT DISTINCT w
  FROM "products" p
  JOIN "stores" s ON s."id" = p."store_id",
  LATERAL regexp_split_to_table(
    lower(p."title" || ' ' || array_to_string(p."tags", ' ') || ' ' || array_to_string(p."categories", ' ') || ' '
          || s."name" || ' ' || p."description_text"),
    '[^[:alnum:]]+') w
  WHERE p."id" = ANY (ids) AND length(w) BETWEEN 3 AND 40
    AND EXISTS (SELECT 1 FROM "catalog_search_documents" d WHERE d."product_id" = p."id")
  ON CONFLICT ("word") DO NOTHING;

  IF (SELECT "outbox_enabled" FROM "catalog_search_state" WHERE "id" = 1) THEN
    INSERT INTO "catalog_search_outbox" ("product_id") SELECT DISTINCT unnest(ids);
  END IF;
END;
$fn$;

-- ── Hand-written: search documents are rewritten only when what they show changes ───────────────────────────
-- Every checkout decrements inventory. Before this, each such UPDATE rebuilt the product's whole document
-- (four to_tsvector calls, the vocabulary split of title + description) and wrote a new row version even when
-- nothing searchable changed. Now a variant update that keeps its product touches only the price/availability
-- columns, and only when their values change (5 → 4 in stock changes nothing; 1 → 0 flips `available`); a
-- product update refreshes only products whose searchable columns changed; and a full refresh skips a
-- document that comes out identical.

CREATE FUNCTION catalog_search_refresh_offers(ids text[]) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  changed text[];
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  WITH v AS (
    SELECT x."product_id",
           min(x."price_minor") AS price_min,
           min(x."price_minor") FILTER (WHERE x."inventory" > 0) AS price_min_available,
           coalesce(bool_or(x."inventory" > 0), false) AS available,
           min(x."currency") AS currency
    FROM "variants" x WHERE x."product_id" = ANY (ids)
    GROUP BY x."product_id"
  ), u AS (
    UPDATE "catalog_search_documents" d
    SET "price_min" = v.price_min, "price_min_available" = v.price_min_available,
        "available" = v.available, "currency" = v.currency
    FROM v
    WHERE d."product_id" = v."product_id"
      AND (d."price_min", d."price_min_available", d."available", d."currency")
          IS DISTINCT FROM (v.price_min, v.price_min_available, v.available, v.currency)
    RETURNING d."product_id"
  )
  SELECT array_agg(u."product_id") INTO changed FROM u;
  IF changed IS NOT NULL AND (SELECT "outbox_enabled" FROM "catalog_search_state" WHERE "id" = 1) THEN
    INSERT INTO "catalog_search_outbox" ("product_id") SELECT unnest(changed);
  END IF;
END;
$fn$;

CREATE OR REPLACE FUNCTION catalog_search_on_variants() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT DISTINCT "product_id" FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT DISTINCT "product_id" FROM old_rows));
  ELSIF EXISTS (SELECT 1 FROM new_rows n LEFT JOIN old_rows o ON o."id" = n."id"
                WHERE o."id" IS NULL OR o."product_id" IS DISTINCT FROM n."product_id") THEN
    -- a variant moved to another product (or changed id): both products' documents are rebuilt
    PERFORM catalog_search_refresh(ARRAY(
      SELECT "product_id" FROM new_rows UNION SELECT "product_id" FROM old_rows));
  ELSE
    PERFORM catalog_search_refresh_offers(ARRAY(
      SELECT DISTINCT n."product_id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
      WHERE (n."price_minor", n."inventory", n."currency")
            IS DISTINCT FROM (o."price_minor", o."inventory", o."currency")));
  END IF;
  RETURN NULL;
END;
$fn$;

CREATE OR REPLACE FUNCTION catalog_search_on_products() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT "id" FROM old_rows));
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT "id" FROM new_rows));
  ELSE
    -- only products whose searchable columns changed (an id change refreshes the old and the new id)
    PERFORM catalog_search_refresh(ARRAY(
      SELECT n."id" FROM new_rows n LEFT JOIN old_rows o ON o."id" = n."id"
      WHERE o."id" IS NULL
         OR (n."store_id", n."title", n."description_text", n."categories", n."tags", n."attributes", n."created_at")
            IS DISTINCT FROM
            (o."store_id", o."title", o."description_text", o."categories", o."tags", o."attributes", o."created_at")
      UNION
      SELECT o."id" FROM old_rows o WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n."id" = o."id")));
  END IF;
  RETURN NULL;
END;
$fn$;

DROP TRIGGER catalog_search_products_update ON "products";
CREATE TRIGGER catalog_search_products_update AFTER UPDATE ON "products"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION catalog_search_on_products();

-- Category texts of the catalog that exists now.
INSERT INTO "catalog_search_categories" ("category_text")
SELECT DISTINCT "category_text" FROM "catalog_search_documents"
ON CONFLICT ("category_text") DO NOTHING;

-- Word matches are found through the GIN index, never by a sequential scan. With statistics on `document` the
-- planner estimated a common word's matches well (17,500 of 100,000) but costs `@@` as one cheap operator per
-- row, so it scanned and tested all 100,000 documents (160 ms) instead of fetching the 17,500 from the index
-- (40 ms). Without statistics it assumes 0.5 % match and takes the index. The type change to the same type
-- drops the statistics gathered so far (it neither rewrites the table nor rebuilds the index).
ALTER TABLE "catalog_search_documents" ALTER COLUMN "document" SET STATISTICS 0;
ALTER TABLE "catalog_search_documents" ALTER COLUMN "document" TYPE tsvector;

-- Title words of the catalog that exists now (the same text the refresh writes).
UPDATE "catalog_search_documents" SET "title_document" = to_tsvector('english', "title");
