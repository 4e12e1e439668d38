-- CreateEnum
CREATE TYPE "webhook_target" AS ENUM ('store', 'platform');

-- CreateEnum
CREATE TYPE "webhook_delivery_state" AS ENUM ('pending', 'delivered', 'dead');

-- CreateTable
CREATE TABLE "order_events" (
    "id" TEXT NOT NULL,
    "position" SERIAL NOT NULL,
    "store_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "fanned_out_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "target" "webhook_target" NOT NULL,
    "url" TEXT NOT NULL,
    "profile_url" TEXT,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMP(3),
    "disabled_at" TIMESTAMP(3),
    "disabled_reason" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "store_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "state" "webhook_delivery_state" NOT NULL DEFAULT 'pending',
    "body" TEXT NOT NULL,
    "timestamp" INTEGER NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL,
    "locked_until" TIMESTAMP(3),
    "delivered_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "target_url" TEXT NOT NULL DEFAULT '',
    "status" INTEGER,
    "error" TEXT,
    "latency_ms" INTEGER NOT NULL,
    "response_snippet" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "order_events_position_key" ON "order_events"("position");

-- CreateIndex
CREATE INDEX "order_events_store_id_position_idx" ON "order_events"("store_id", "position");

-- CreateIndex
CREATE INDEX "order_events_fanned_out_at_idx" ON "order_events"("fanned_out_at");

-- CreateIndex
CREATE UNIQUE INDEX "order_events_order_id_sequence_key" ON "order_events"("order_id", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_endpoints_store_id_target_url_key" ON "webhook_endpoints"("store_id", "target", "url");

-- CreateIndex
CREATE INDEX "webhook_deliveries_state_next_attempt_at_idx" ON "webhook_deliveries"("state", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_order_id_sequence_idx" ON "webhook_deliveries"("endpoint_id", "order_id", "sequence");

-- CreateIndex
CREATE INDEX "webhook_deliveries_store_id_created_at_idx" ON "webhook_deliveries"("store_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_endpoint_id_key" ON "webhook_deliveries"("event_id", "endpoint_id");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_started_at_idx" ON "webhook_attempts"("delivery_id", "started_at");

-- AddForeignKey
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "order_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
