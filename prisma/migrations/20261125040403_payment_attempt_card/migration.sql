-- AlterTable
ALTER TABLE "payment_attempts" ADD COLUMN     "card_brand" TEXT,
ADD COLUMN     "card_last4" TEXT;
