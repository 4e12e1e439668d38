-- AlterTable
ALTER TABLE "captured_mail" ADD COLUMN     "verification_for" TEXT;

-- AlterTable
ALTER TABLE "merchant_accounts" ADD COLUMN     "email_verified_at" TIMESTAMP(3);

-- Accounts made before verification existed (the operator's, the demo's, every merchant's so far) keep working as
-- they did: they count as verified from when they were made.
UPDATE "merchant_accounts" SET "email_verified_at" = "created_at";

-- CreateTable
CREATE TABLE "email_verifications" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_invitations" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "invited_by_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "accepted_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "store_invitations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "email_verifications_token_hash_key" ON "email_verifications"("token_hash");

-- CreateIndex
CREATE INDEX "email_verifications_account_id_created_at_idx" ON "email_verifications"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "store_invitations_token_hash_key" ON "store_invitations"("token_hash");

-- CreateIndex
CREATE INDEX "store_invitations_store_id_created_at_idx" ON "store_invitations"("store_id", "created_at");

-- AddForeignKey
ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "merchant_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_invitations" ADD CONSTRAINT "store_invitations_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_invitations" ADD CONSTRAINT "store_invitations_invited_by_id_fkey" FOREIGN KEY ("invited_by_id") REFERENCES "merchant_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
