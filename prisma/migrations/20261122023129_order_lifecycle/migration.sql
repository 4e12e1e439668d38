-- CreateTable
CREATE TABLE "order_fulfillment_events" (
    "id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "occurred_at" TIMESTAMP(3) NOT NULL,
    "line_items" JSONB NOT NULL DEFAULT '[]',
    "carrier" TEXT,
    "tracking_number" TEXT,
    "tracking_url" TEXT,
    "description" TEXT,

    CONSTRAINT "order_fulfillment_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_adjustments" (
    "id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'completed',
    "occurred_at" TIMESTAMP(3) NOT NULL,
    "totals" JSONB NOT NULL DEFAULT '[]',
    "description" TEXT,

    CONSTRAINT "order_adjustments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "order_fulfillment_events_order_id_occurred_at_idx" ON "order_fulfillment_events"("order_id", "occurred_at");

-- CreateIndex
CREATE INDEX "order_adjustments_order_id_occurred_at_idx" ON "order_adjustments"("order_id", "occurred_at");

-- AddForeignKey
ALTER TABLE "order_fulfillment_events" ADD CONSTRAINT "order_fulfillment_events_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_adjustments" ADD CONSTRAINT "order_adjustments_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
