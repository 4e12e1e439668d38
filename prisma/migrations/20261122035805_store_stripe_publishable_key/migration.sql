-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "stripe_publishable_key" TEXT;
