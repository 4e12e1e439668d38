-- A variant's stock enters its product's search document only as "is it above zero" (available and the lowest
-- available price, catalog_search_refresh_offers), so an update of stock that stays on the same side of zero
-- leaves the document as it is and is not sent to the refresh. A sale of one unit out of many was the most
-- frequent update of variants, and the refresh's work made it cost about twice a plain update.
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
      WHERE (n."price_minor", n."inventory" > 0, n."currency")
            IS DISTINCT FROM (o."price_minor", o."inventory" > 0, o."currency")));
  END IF;
  RETURN NULL;
END;
$fn$;
