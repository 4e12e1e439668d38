-- CreateTable
CREATE TABLE "catalog_search_title_terms" (
    "product_id" TEXT NOT NULL,
    "lexeme" TEXT NOT NULL,
    "rank" REAL NOT NULL,

    CONSTRAINT "catalog_search_title_terms_pkey" PRIMARY KEY ("product_id","lexeme")
);

-- CreateIndex
CREATE INDEX "catalog_search_title_terms_rank_idx" ON "catalog_search_title_terms"("lexeme", "rank" DESC, "product_id");

-- ── Hand-written: a one-word search's title tier is read in rank order (docs/search.md "Ranking one word") ────
-- Ranking a common word's title matches visited every one of them (4,556 documents over 3,584 heap pages for
-- "jacket" at 100,000 products). These rows hold, for each lexeme of a document's title, the rank a search of that
-- one word gives the document, so the best of them come first from the index. They are derived from the documents
-- by the triggers below, in the writer's transaction, like the documents from the products.

-- The one-lexeme tsquery of a lexeme as stored (quoted: a lexeme of the simple dictionary may hold punctuation).
-- `ts_rank(document, catalog_search_lexeme_query(l))` equals `ts_rank(document, plainto_tsquery('english', w))` for a
-- word w whose one lexeme is l: the same query.
CREATE FUNCTION catalog_search_lexeme_query(lexeme text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery
$fn$;

CREATE FUNCTION catalog_search_title_terms_on_insert() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "catalog_search_title_terms" ("product_id", "lexeme", "rank")
  SELECT n."product_id", t.lexeme, ts_rank(n."document", catalog_search_lexeme_query(t.lexeme))
  FROM new_rows n, unnest(n."title_document") t
  WHERE n."document" IS NOT NULL
  ON CONFLICT ("product_id", "lexeme") DO UPDATE SET "rank" = EXCLUDED."rank";
  RETURN NULL;
END;
$fn$;

-- A row trigger whose WHEN is checked without calling the function: the frequent updates of a document's prices and
-- availability (every sale that empties a variant) leave its words alone and cost nothing here.
CREATE FUNCTION catalog_search_title_terms_on_update() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "catalog_search_title_terms" WHERE "product_id" IN (OLD."product_id", NEW."product_id");
  INSERT INTO "catalog_search_title_terms" ("product_id", "lexeme", "rank")
  SELECT NEW."product_id", t.lexeme, ts_rank(NEW."document", catalog_search_lexeme_query(t.lexeme))
  FROM unnest(NEW."title_document") t
  WHERE NEW."document" IS NOT NULL;
  RETURN NULL;
END;
$fn$;

CREATE FUNCTION catalog_search_title_terms_on_delete() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "catalog_search_title_terms" t USING old_rows o WHERE t."product_id" = o."product_id";
  RETURN NULL;
END;
$fn$;

CREATE TRIGGER catalog_search_title_terms_insert AFTER INSERT ON "catalog_search_documents"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION catalog_search_title_terms_on_insert();

CREATE TRIGGER catalog_search_title_terms_update AFTER UPDATE ON "catalog_search_documents"
  FOR EACH ROW
  WHEN (OLD."product_id" IS DISTINCT FROM NEW."product_id"
        OR OLD."document" IS DISTINCT FROM NEW."document"
        OR OLD."title_document" IS DISTINCT FROM NEW."title_document")
  EXECUTE FUNCTION catalog_search_title_terms_on_update();

CREATE TRIGGER catalog_search_title_terms_delete AFTER DELETE ON "catalog_search_documents"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION catalog_search_title_terms_on_delete();

-- The title words of the documents that exist now.
INSERT INTO "catalog_search_title_terms" ("product_id", "lexeme", "rank")
SELECT d."product_id", t.lexeme, ts_rank(d."document", catalog_search_lexeme_query(t.lexeme))
FROM "catalog_search_documents" d, unnest(d."title_document") t
WHERE d."document" IS NOT NULL;
