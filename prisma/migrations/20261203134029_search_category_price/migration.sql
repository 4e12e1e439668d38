-- CreateIndex
CREATE INDEX "catalog_search_documents_category_price_idx" ON "catalog_search_documents"("category_text", "price_min", "product_id");

-- CreateIndex
CREATE INDEX "catalog_search_documents_category_price_available_idx" ON "catalog_search_documents"("category_text", "price_min_available", "product_id");
