-- AlterTable
ALTER TABLE "coupon_payables" ADD COLUMN     "settled_at" TIMESTAMP(3);
