-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "ucp_version" TEXT NOT NULL DEFAULT '2026-04-08';
