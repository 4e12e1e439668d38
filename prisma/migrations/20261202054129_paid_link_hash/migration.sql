-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "paid_link_hash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_paid_link_hash_key" ON "checkout_sessions"("paid_link_hash");
