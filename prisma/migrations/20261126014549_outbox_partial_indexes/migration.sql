-- DropIndex
DROP INDEX "order_events_fanned_out_at_idx";

-- DropIndex
DROP INDEX "orders_confirmation_mail_idx";

-- CreateIndex
CREATE INDEX "checkout_sessions_open_idx" ON "checkout_sessions"("id") WHERE (status NOT IN ('completed', 'canceled'));

-- CreateIndex
CREATE INDEX "order_events_unfanned_idx" ON "order_events"("position") WHERE (fanned_out_at IS NULL);

-- CreateIndex
CREATE INDEX "orders_confirmation_mail_pending_idx" ON "orders"("created_at") WHERE (confirmation_mail = 'pending');

-- CreateIndex
CREATE INDEX "payment_attempts_sweep_idx" ON "payment_attempts"("updated_at", "id") WHERE (NOT is_current OR state = 'refunding');
