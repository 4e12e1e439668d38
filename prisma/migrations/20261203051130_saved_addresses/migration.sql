-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "remember_addresses" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "saved_addresses" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "address" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "saved_addresses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "saved_addresses_store_id_principal_id_email_created_at_idx" ON "saved_addresses"("store_id", "principal_id", "email", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "saved_addresses_store_id_principal_id_email_fingerprint_key" ON "saved_addresses"("store_id", "principal_id", "email", "fingerprint");

-- AddForeignKey
ALTER TABLE "saved_addresses" ADD CONSTRAINT "saved_addresses_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;
