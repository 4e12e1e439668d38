-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "agent_cancellations" TEXT NOT NULL DEFAULT 'automatic',
ADD COLUMN     "agent_refund_auto_minor" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "order_requests" (
    "id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL DEFAULT 0,
    "reason" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "decided_at" TIMESTAMP(3),
    "decided_by" TEXT,
    "decline_reason" TEXT,
    "adjustment_id" TEXT,

    CONSTRAINT "order_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "order_requests_order_id_created_at_idx" ON "order_requests"("order_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "order_requests_one_pending" ON "order_requests"("order_id") WHERE (status = 'pending');

-- AddForeignKey
ALTER TABLE "order_requests" ADD CONSTRAINT "order_requests_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
