-- CreateEnum
CREATE TYPE "discount_kind" AS ENUM ('percentage', 'fixed_amount');

-- AlterTable
ALTER TABLE "carts" ADD COLUMN     "continue_token" TEXT;

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "attribution" JSONB,
ADD COLUMN     "context" JSONB,
ADD COLUMN     "payment_instruments" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "shipping_rates" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "carrier" TEXT,
    "country" TEXT NOT NULL,
    "region" TEXT,
    "min_weight_grams" INTEGER NOT NULL DEFAULT 0,
    "max_weight_grams" INTEGER,
    "min_subtotal_minor" INTEGER NOT NULL DEFAULT 0,
    "max_subtotal_minor" INTEGER,
    "price_minor" INTEGER NOT NULL,
    "free_over_minor" INTEGER,
    "min_days" INTEGER,
    "max_days" INTEGER,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "shipping_rates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discount_codes" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "kind" "discount_kind" NOT NULL,
    "value" INTEGER NOT NULL,
    "min_subtotal_minor" INTEGER NOT NULL DEFAULT 0,
    "starts_at" TIMESTAMP(3),
    "expires_at" TIMESTAMP(3),

    CONSTRAINT "discount_codes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "shipping_rates_store_id_idx" ON "shipping_rates"("store_id");

-- CreateIndex
CREATE UNIQUE INDEX "discount_codes_store_id_code_key" ON "discount_codes"("store_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "carts_continue_token_key" ON "carts"("continue_token");

-- AddForeignKey
ALTER TABLE "shipping_rates" ADD CONSTRAINT "shipping_rates_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discount_codes" ADD CONSTRAINT "discount_codes_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;
