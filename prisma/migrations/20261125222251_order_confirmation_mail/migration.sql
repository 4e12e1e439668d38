-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "confirmation_mail" TEXT,
ADD COLUMN     "confirmation_mail_locked_until" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "orders_confirmation_mail_idx" ON "orders"("confirmation_mail");
