-- CreateTable
CREATE TABLE "payment_attempts" (
    "id" TEXT NOT NULL,
    "checkout_id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "rail" TEXT NOT NULL,
    "provider_ref" TEXT,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "is_current" BOOLEAN NOT NULL DEFAULT true,
    "refund_ref" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "payment_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payment_attempts_checkout_id_idx" ON "payment_attempts"("checkout_id");

-- CreateIndex
CREATE INDEX "payment_attempts_state_updated_at_idx" ON "payment_attempts"("state", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "payment_attempts_provider_ref_key" ON "payment_attempts"("provider_ref");

-- CreateIndex
CREATE UNIQUE INDEX "payment_attempts_one_current" ON "payment_attempts"("checkout_id") WHERE (is_current);
