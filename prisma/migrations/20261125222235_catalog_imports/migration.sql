-- CreateTable
CREATE TABLE "catalog_imports" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "total" INTEGER NOT NULL,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "pending" JSONB NOT NULL DEFAULT '[]',
    "rejected" JSONB NOT NULL DEFAULT '[]',
    "lease_until" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "catalog_imports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_imports_store_id_created_at_idx" ON "catalog_imports"("store_id", "created_at");

-- AddForeignKey
ALTER TABLE "catalog_imports" ADD CONSTRAINT "catalog_imports_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;
