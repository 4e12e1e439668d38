-- AlterTable
ALTER TABLE "catalog_search_state" ADD COLUMN     "changes_started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "catalog_changes" (
    "id" BIGSERIAL NOT NULL,
    "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "store_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "variant_id" TEXT,
    "kind" TEXT NOT NULL,
    "fields" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "price_minor" INTEGER,
    "list_price_minor" INTEGER,
    "currency" TEXT,
    "available" BOOLEAN,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "catalog_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_changes_position_idx" ON "catalog_changes"("xid", "id");

-- CreateIndex
CREATE INDEX "catalog_changes_store_position_idx" ON "catalog_changes"("store_id", "xid", "id");

-- CreateIndex
CREATE INDEX "catalog_changes_created_at_idx" ON "catalog_changes"("created_at");

-- ── Hand-written: the triggers that append to the feed (docs/catalog-changes.md) ─────────────────────────────────
-- Statement-level with transition tables, like the search triggers: a 1,000-row insert appends its 1,000 changes in
-- one INSERT … SELECT, in the writer's transaction (a rolled-back write leaves no change behind). Field names are
-- the wire's. An update that changes nothing the wire shows (only updated_at, or stock that stays on the same side
-- of zero: a sale of one unit out of many) appends nothing.

CREATE FUNCTION catalog_changes_on_products() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "catalog_changes" ("store_id", "product_id", "kind")
    SELECT n."store_id", n."id", 'created' FROM new_rows n ORDER BY n."id";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "catalog_changes" ("store_id", "product_id", "kind")
    SELECT o."store_id", o."id", 'deleted' FROM old_rows o ORDER BY o."id";
  ELSE
    INSERT INTO "catalog_changes" ("store_id", "product_id", "kind", "fields")
    SELECT n."store_id", n."id", 'updated', f.fields
    FROM new_rows n
    JOIN old_rows o ON o."id" = n."id"
    CROSS JOIN LATERAL (SELECT array_remove(ARRAY[
      CASE WHEN n."handle" IS DISTINCT FROM o."handle" THEN 'handle' END,
      CASE WHEN n."title" IS DISTINCT FROM o."title" THEN 'title' END,
      CASE WHEN (n."description_text", n."description_html") IS DISTINCT FROM
                (o."description_text", o."description_html") THEN 'description' END,
      CASE WHEN n."categories" IS DISTINCT FROM o."categories" THEN 'categories' END,
      CASE WHEN n."tags" IS DISTINCT FROM o."tags" THEN 'tags' END,
      CASE WHEN n."attributes" IS DISTINCT FROM o."attributes" THEN 'attributes' END,
      CASE WHEN n."options" IS DISTINCT FROM o."options" THEN 'options' END,
      CASE WHEN n."media" IS DISTINCT FROM o."media" THEN 'media' END,
      CASE WHEN n."url" IS DISTINCT FROM o."url" THEN 'url' END
    ], NULL) AS fields) f
    WHERE cardinality(f.fields) > 0
    ORDER BY n."id";
  END IF;
  RETURN NULL;
END;
$fn$;

-- A variant's change carries its state after the change (price, list price, currency, availability), so a reader
-- needs no second call for the values that move most. Stock enters only as availability (inventory > 0). A variant
-- deleted with its product (the cascade of a product delete) is not listed: the product's own `deleted` says it.
CREATE FUNCTION catalog_changes_on_variants() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "catalog_changes"
      ("store_id", "product_id", "variant_id", "kind", "price_minor", "list_price_minor", "currency", "available")
    SELECT n."store_id", n."product_id", n."id", 'created', n."price_minor", n."list_price_minor", n."currency",
           n."inventory" > 0
    FROM new_rows n ORDER BY n."product_id", n."position", n."id";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "catalog_changes" ("store_id", "product_id", "variant_id", "kind")
    SELECT o."store_id", o."product_id", o."id", 'deleted' FROM old_rows o
    WHERE EXISTS (SELECT 1 FROM "products" p WHERE p."id" = o."product_id")
    ORDER BY o."product_id", o."position", o."id";
  ELSE
    INSERT INTO "catalog_changes"
      ("store_id", "product_id", "variant_id", "kind", "fields", "price_minor", "list_price_minor", "currency",
       "available")
    SELECT n."store_id", n."product_id", n."id", 'updated', f.fields, n."price_minor", n."list_price_minor",
           n."currency", n."inventory" > 0
    FROM new_rows n
    JOIN old_rows o ON o."id" = n."id"
    CROSS JOIN LATERAL (SELECT array_remove(ARRAY[
      CASE WHEN n."product_id" IS DISTINCT FROM o."product_id" THEN 'product_id' END,
      CASE WHEN n."handle" IS DISTINCT FROM o."handle" THEN 'handle' END,
      CASE WHEN n."title" IS DISTINCT FROM o."title" THEN 'title' END,
      CASE WHEN n."sku" IS DISTINCT FROM o."sku" THEN 'sku' END,
      CASE WHEN (n."barcode", n."barcode_type") IS DISTINCT FROM (o."barcode", o."barcode_type") THEN 'barcode' END,
      CASE WHEN (n."price_minor", n."currency") IS DISTINCT FROM (o."price_minor", o."currency") THEN 'price' END,
      CASE WHEN (n."list_price_minor", n."currency") IS DISTINCT FROM (o."list_price_minor", o."currency")
                AND (n."list_price_minor" IS NOT NULL OR o."list_price_minor" IS NOT NULL) THEN 'list_price' END,
      CASE WHEN (n."inventory" > 0) IS DISTINCT FROM (o."inventory" > 0) THEN 'availability' END,
      CASE WHEN n."weight_grams" IS DISTINCT FROM o."weight_grams" THEN 'weight' END,
      CASE WHEN n."options" IS DISTINCT FROM o."options" THEN 'options' END,
      CASE WHEN n."position" IS DISTINCT FROM o."position" THEN 'position' END
    ], NULL) AS fields) f
    WHERE cardinality(f.fields) > 0
    ORDER BY n."product_id", n."position", n."id";
  END IF;
  RETURN NULL;
END;
$fn$;

CREATE TRIGGER catalog_changes_products_insert AFTER INSERT ON "products"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_changes_on_products();
CREATE TRIGGER catalog_changes_products_update AFTER UPDATE ON "products"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_changes_on_products();
CREATE TRIGGER catalog_changes_products_delete AFTER DELETE ON "products"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_changes_on_products();
CREATE TRIGGER catalog_changes_variants_insert AFTER INSERT ON "variants"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_changes_on_variants();
CREATE TRIGGER catalog_changes_variants_update AFTER UPDATE ON "variants"
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_changes_on_variants();
CREATE TRIGGER catalog_changes_variants_delete AFTER DELETE ON "variants"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_changes_on_variants();
