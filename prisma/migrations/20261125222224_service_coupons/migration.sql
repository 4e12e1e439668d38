-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "coupon_grant_id" TEXT;

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "service_coupon_minor" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "service_coupons" (
    "id" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_coupons_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "coupon_grants" (
    "id" TEXT NOT NULL,
    "coupon_id" TEXT NOT NULL,
    "buyer_id" TEXT NOT NULL,
    "redeemed_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "coupon_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "coupon_payables" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "grant_id" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "coupon_payables_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "coupon_grants_buyer_id_idx" ON "coupon_grants"("buyer_id");

-- CreateIndex
CREATE UNIQUE INDEX "coupon_grants_coupon_id_buyer_id_key" ON "coupon_grants"("coupon_id", "buyer_id");

-- CreateIndex
CREATE UNIQUE INDEX "coupon_payables_order_id_key" ON "coupon_payables"("order_id");

-- CreateIndex
CREATE UNIQUE INDEX "coupon_payables_grant_id_key" ON "coupon_payables"("grant_id");

-- CreateIndex
CREATE INDEX "coupon_payables_store_id_status_idx" ON "coupon_payables"("store_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_coupon_grant_id_key" ON "checkout_sessions"("coupon_grant_id");

-- AddForeignKey
ALTER TABLE "coupon_grants" ADD CONSTRAINT "coupon_grants_coupon_id_fkey" FOREIGN KEY ("coupon_id") REFERENCES "service_coupons"("id") ON DELETE CASCADE ON UPDATE CASCADE;
