-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "bound_principal_id" TEXT;

-- CreateTable
CREATE TABLE "crypto_payments" (
    "prepared_digest" TEXT NOT NULL,
    "checkout_id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "buyer_address" TEXT NOT NULL,
    "transaction_bytes" TEXT NOT NULL,
    "legs" JSONB NOT NULL,
    "quote" JSONB NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "prepared_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "submitted_digest" TEXT,
    "settled_digest" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crypto_payments_pkey" PRIMARY KEY ("prepared_digest")
);

-- CreateTable
CREATE TABLE "crypto_owed_back" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "checkout_id" TEXT NOT NULL,
    "buyer_address" TEXT NOT NULL,
    "payment_digest" TEXT NOT NULL,
    "amounts" JSONB NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "refund_digest" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMP(3),

    CONSTRAINT "crypto_owed_back_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "intent_mandates" (
    "id" TEXT NOT NULL,
    "buyer_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "envelope" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "per_order_max" INTEGER,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "intent_mandates_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "crypto_payments_settled_digest_key" ON "crypto_payments"("settled_digest");

-- CreateIndex
CREATE INDEX "crypto_payments_checkout_id_idx" ON "crypto_payments"("checkout_id");

-- CreateIndex
CREATE UNIQUE INDEX "crypto_owed_back_refund_digest_key" ON "crypto_owed_back"("refund_digest");

-- CreateIndex
CREATE INDEX "crypto_owed_back_store_id_status_idx" ON "crypto_owed_back"("store_id", "status");

-- CreateIndex
CREATE INDEX "crypto_owed_back_buyer_address_idx" ON "crypto_owed_back"("buyer_address");

-- CreateIndex
CREATE UNIQUE INDEX "crypto_owed_back_payment_digest_checkout_id_key" ON "crypto_owed_back"("payment_digest", "checkout_id");

-- CreateIndex
CREATE INDEX "intent_mandates_buyer_id_client_id_idx" ON "intent_mandates"("buyer_id", "client_id");

-- CreateIndex
CREATE INDEX "checkout_sessions_bound_principal_id_idx" ON "checkout_sessions"("bound_principal_id");
