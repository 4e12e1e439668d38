-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "stripe_webhook_secret" TEXT;

-- CreateTable
CREATE TABLE "card_payments" (
    "checkout_id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "payment_intent_id" TEXT,
    "status" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "card_payments_pkey" PRIMARY KEY ("checkout_id")
);

-- CreateTable
CREATE TABLE "stripe_webhook_events" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stripe_webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "card_payments_store_id_idx" ON "card_payments"("store_id");
