-- Catalog search (issue #3; docs/search.md). Extensions first: the trigram indexes below need pg_trgm, and the
-- typo fallback calls fuzzystrmatch's levenshtein_less_equal. PGlite loads both (lib/config/database.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

-- CreateTable
CREATE TABLE "catalog_search_documents" (
    "product_id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "store_slug" TEXT NOT NULL,
    "store_name" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "currency" TEXT,
    "price_min" INTEGER,
    "price_min_available" INTEGER,
    "available" BOOLEAN NOT NULL DEFAULT false,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "categories" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "category_text" TEXT NOT NULL DEFAULT '',
    "attributes" JSONB NOT NULL DEFAULT '[]',
    "payment" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "document" tsvector,

    CONSTRAINT "catalog_search_documents_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "catalog_search_terms" (
    "word" TEXT NOT NULL,

    CONSTRAINT "catalog_search_terms_pkey" PRIMARY KEY ("word")
);

-- CreateTable
CREATE TABLE "catalog_search_outbox" (
    "id" BIGSERIAL NOT NULL,
    "product_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_search_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalog_search_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "outbox_enabled" BOOLEAN NOT NULL DEFAULT false,
    "cursor_secret" TEXT NOT NULL,

    CONSTRAINT "catalog_search_state_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_search_documents_document_idx" ON "catalog_search_documents" USING GIN ("document");

-- CreateIndex
CREATE INDEX "catalog_search_documents_tags_idx" ON "catalog_search_documents" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "catalog_search_documents_payment_idx" ON "catalog_search_documents" USING GIN ("payment");

-- CreateIndex
CREATE INDEX "catalog_search_documents_attributes_idx" ON "catalog_search_documents" USING GIN ("attributes" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "catalog_search_documents_category_trgm_idx" ON "catalog_search_documents" USING GIN ("category_text" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "catalog_search_documents_newest_idx" ON "catalog_search_documents"("created_at" DESC, "product_id" DESC);

-- CreateIndex
CREATE INDEX "catalog_search_documents_price_available_idx" ON "catalog_search_documents"("price_min_available", "product_id");

-- CreateIndex
CREATE INDEX "catalog_search_documents_price_idx" ON "catalog_search_documents"("price_min", "product_id");

-- CreateIndex
CREATE INDEX "catalog_search_documents_store_newest_idx" ON "catalog_search_documents"("store_id", "created_at" DESC, "product_id" DESC);

-- CreateIndex
CREATE INDEX "catalog_search_terms_word_trgm_idx" ON "catalog_search_terms" USING GIN ("word" gin_trgm_ops);

-- ── Hand-written: state row, the refresh function and the triggers that keep search documents current ────────

INSERT INTO "catalog_search_state" ("id", "outbox_enabled", "cursor_secret")
VALUES (1, false, encode(sha256(convert_to(gen_random_uuid()::text || clock_timestamp()::text, 'UTF8')), 'hex'))
ON CONFLICT ("id") DO NOTHING;

-- Rebuilds the search documents of the given products from products, variants and stores (set-based; one call
-- per statement). Only a product with at least one variant has a document (one without is never shown), so a
-- bulk insert of products then variants writes each document once, without a dead tuple per product. Products
-- that no longer exist or have no variant lose their document. Adds their words to the vocabulary and, while a
-- Meilisearch index is kept (outbox_enabled), queues the ids for it in the same transaction.
CREATE FUNCTION catalog_search_refresh(ids text[]) RETURNS void
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
         THEN ARRAY(SELECT lower(c ->> 'symbol') FROM jsonb_array_elements(s."accepted_coins") c
                    WHERE c ->> 'symbol' IS NOT NULL)
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

CREATE FUNCTION catalog_search_on_products() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT "id" FROM old_rows));
  ELSE
    PERFORM catalog_search_refresh(ARRAY(SELECT "id" FROM new_rows));
  END IF;
  RETURN NULL;
END;
$fn$;

CREATE FUNCTION catalog_search_on_variants() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT DISTINCT "product_id" FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM catalog_search_refresh(ARRAY(SELECT DISTINCT "product_id" FROM old_rows));
  ELSE
    PERFORM catalog_search_refresh(ARRAY(
      SELECT "product_id" FROM new_rows UNION SELECT "product_id" FROM old_rows));
  END IF;
  RETURN NULL;
END;
$fn$;

CREATE FUNCTION catalog_search_on_stores() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM catalog_search_refresh(ARRAY(SELECT "id" FROM "products" WHERE "store_id" = NEW."id"));
  RETURN NULL;
END;
$fn$;

-- Statement-level triggers with transition tables: a bulk insert of 1,000 products refreshes once, set-based.
-- (PostgreSQL allows a transition table only on single-event triggers, hence one trigger per event.)
CREATE TRIGGER catalog_search_products_insert AFTER INSERT ON "products"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_on_products();
CREATE TRIGGER catalog_search_products_update AFTER UPDATE ON "products"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_on_products();
CREATE TRIGGER catalog_search_products_delete AFTER DELETE ON "products"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_on_products();
CREATE TRIGGER catalog_search_variants_insert AFTER INSERT ON "variants"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_on_variants();
CREATE TRIGGER catalog_search_variants_update AFTER UPDATE ON "variants"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION catalog_search_on_variants();
CREATE TRIGGER catalog_search_variants_delete AFTER DELETE ON "variants"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_search_on_variants();
-- Store rows change rarely; only the fields a document shows or filters on trigger a refresh.
CREATE TRIGGER catalog_search_stores_update AFTER UPDATE ON "stores" FOR EACH ROW
  WHEN (OLD."slug" IS DISTINCT FROM NEW."slug" OR OLD."name" IS DISTINCT FROM NEW."name"
        OR OLD."card_enabled" IS DISTINCT FROM NEW."card_enabled"
        OR OLD."crypto_enabled" IS DISTINCT FROM NEW."crypto_enabled"
        OR OLD."accepted_coins" IS DISTINCT FROM NEW."accepted_coins")
  EXECUTE FUNCTION catalog_search_on_stores();

-- Documents for a catalog that existed before this migration.
SELECT catalog_search_refresh(ARRAY(SELECT "id" FROM "products"));
