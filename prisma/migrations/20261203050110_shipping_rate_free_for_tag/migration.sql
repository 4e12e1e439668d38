-- AlterTable
ALTER TABLE "shipping_rates" ADD COLUMN     "free_for_tag" TEXT;
