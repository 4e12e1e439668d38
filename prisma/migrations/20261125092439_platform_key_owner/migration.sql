-- AlterTable
ALTER TABLE "platform_api_keys" ADD COLUMN     "account_id" TEXT;

-- CreateIndex
CREATE INDEX "platform_api_keys_account_id_idx" ON "platform_api_keys"("account_id");
