-- DropIndex
DROP INDEX "crypto_payments_settled_digest_key";

-- AlterTable
ALTER TABLE "crypto_payments" ADD COLUMN     "group_id" TEXT,
ADD COLUMN     "transaction_digest" TEXT;

-- CreateTable
CREATE TABLE "crypto_digest_claims" (
    "digest" TEXT NOT NULL,
    "claimant" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crypto_digest_claims_pkey" PRIMARY KEY ("digest")
);

-- CreateTable
CREATE TABLE "crypto_payment_groups" (
    "id" TEXT NOT NULL,
    "buyer_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "buyer_address" TEXT NOT NULL,
    "transaction_digest" TEXT NOT NULL,
    "transaction_bytes" TEXT NOT NULL,
    "checkouts" JSONB NOT NULL,
    "quote" JSONB NOT NULL,
    "page_token" TEXT NOT NULL,
    "prepared_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crypto_payment_groups_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "crypto_payment_groups_transaction_digest_key" ON "crypto_payment_groups"("transaction_digest");

-- CreateIndex
CREATE UNIQUE INDEX "crypto_payment_groups_page_token_key" ON "crypto_payment_groups"("page_token");

-- CreateIndex
CREATE INDEX "crypto_payment_groups_buyer_id_idx" ON "crypto_payment_groups"("buyer_id");

-- CreateIndex
CREATE INDEX "crypto_payments_settled_digest_idx" ON "crypto_payments"("settled_digest");

-- CreateIndex
CREATE INDEX "crypto_payments_transaction_digest_idx" ON "crypto_payments"("transaction_digest");

-- CreateIndex
CREATE INDEX "crypto_payments_group_id_idx" ON "crypto_payments"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "crypto_payments_settled_digest_checkout_id_key" ON "crypto_payments"("settled_digest", "checkout_id");

-- Digests settled before this table: each was claimed by its prepared payment
INSERT INTO "crypto_digest_claims" ("digest", "claimant")
SELECT "settled_digest", "prepared_digest" FROM "crypto_payments" WHERE "settled_digest" IS NOT NULL
ON CONFLICT DO NOTHING;
