-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "bound_principal_id" TEXT;

-- CreateIndex
CREATE INDEX "orders_bound_principal_id_idx" ON "orders"("bound_principal_id");

-- Orders placed before this column: take the binding of their checkout
UPDATE "orders" SET "bound_principal_id" = cs."bound_principal_id"
FROM "checkout_sessions" cs
WHERE cs."id" = "orders"."checkout_id" AND cs."bound_principal_id" IS NOT NULL;
