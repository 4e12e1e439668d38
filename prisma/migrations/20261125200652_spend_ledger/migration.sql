-- AlterTable
ALTER TABLE "intent_mandates" ADD COLUMN     "limit_day" INTEGER,
ADD COLUMN     "limit_month" INTEGER,
ADD COLUMN     "limit_week" INTEGER,
ADD COLUMN     "merchants" JSONB NOT NULL DEFAULT '"*"',
ADD COLUMN     "nonce" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "paused_at" TIMESTAMP(3),
ADD COLUMN     "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "spend_entries" (
    "id" TEXT NOT NULL,
    "allowance_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "consumed" INTEGER NOT NULL DEFAULT 0,
    "origin_amount" INTEGER NOT NULL,
    "origin_currency" TEXT NOT NULL,
    "checkout_id" TEXT,
    "group_id" TEXT,
    "store_id" TEXT,
    "order_id" TEXT,
    "parent_id" TEXT,
    "held_checkout_id" TEXT,
    "held_group_id" TEXT,
    "debit_order_id" TEXT,
    "adjustment_id" TEXT,
    "window_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spend_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "spend_entries_held_checkout_id_key" ON "spend_entries"("held_checkout_id");

-- CreateIndex
CREATE UNIQUE INDEX "spend_entries_held_group_id_key" ON "spend_entries"("held_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "spend_entries_debit_order_id_key" ON "spend_entries"("debit_order_id");

-- CreateIndex
CREATE UNIQUE INDEX "spend_entries_adjustment_id_key" ON "spend_entries"("adjustment_id");

-- CreateIndex
CREATE INDEX "spend_entries_allowance_id_window_at_idx" ON "spend_entries"("allowance_id", "window_at");

-- CreateIndex
CREATE INDEX "spend_entries_checkout_id_idx" ON "spend_entries"("checkout_id");

-- CreateIndex
CREATE INDEX "spend_entries_kind_state_expires_at_idx" ON "spend_entries"("kind", "state", "expires_at");

-- AddForeignKey
ALTER TABLE "spend_entries" ADD CONSTRAINT "spend_entries_allowance_id_fkey" FOREIGN KEY ("allowance_id") REFERENCES "intent_mandates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Data: allowances signed before this migration carry their limits, merchants and nonce in the signed payload
-- (base64 of JSON {payload, signature}); copy them into the new columns so the ledger enforces them.
UPDATE "intent_mandates" SET
  "limit_day" = (convert_from(decode("envelope", 'base64'), 'UTF8')::jsonb #>> '{payload,limits,day}')::int,
  "limit_week" = (convert_from(decode("envelope", 'base64'), 'UTF8')::jsonb #>> '{payload,limits,week}')::int,
  "limit_month" = (convert_from(decode("envelope", 'base64'), 'UTF8')::jsonb #>> '{payload,limits,month}')::int,
  "merchants" = COALESCE(convert_from(decode("envelope", 'base64'), 'UTF8')::jsonb #> '{payload,merchants}', '"*"'::jsonb),
  "nonce" = COALESCE(convert_from(decode("envelope", 'base64'), 'UTF8')::jsonb #>> '{payload,nonce}', '');
