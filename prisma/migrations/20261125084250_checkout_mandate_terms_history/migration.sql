-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "mandate_terms_history" JSONB NOT NULL DEFAULT '[]';
