-- AlterTable
ALTER TABLE "order_adjustments" ADD COLUMN     "failure" TEXT,
ADD COLUMN     "line_items" JSONB,
ADD COLUMN     "refund_minor" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "refund_ref" TEXT;

-- AlterTable
ALTER TABLE "order_line_items" ADD COLUMN     "quantity_canceled" INTEGER NOT NULL DEFAULT 0;
