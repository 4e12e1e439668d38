import "server-only";

import { z } from "zod";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { OrderOutputSchema } from "@/lib/ucp/output-schemas";

import { ORDER_INCLUDE, orderToWire } from "./to-wire";

export const OrderIdInputSchema = z.object({ id: z.string().min(1).max(200) });

/**
 * get_order / GET /s/<slug>/orders/<id>: the order snapshot. Needs a platform key with `orders:read` (seed §5);
 * a caller sees only the orders it originated (UCP order: platform credentials see their own orders), and an id
 * under another store's path is not_found.
 * @throws AppError insufficient_trust, insufficient_scope, not_found
 */
export const getOrder = defineOperation({
  name: "get_order",
  title: "Get order",
  description:
    "Read an order of this store by id (checkout.order.id from complete_checkout, or order_id of an order event): line items, fulfillment expectations and events, totals in minor units. Poll it to reconcile a missed webhook. Needs a platform key with orders:read.",
  errors: ["not_found"],
  scope: "store",
  input: OrderIdInputSchema,
  output: OrderOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: null,
  permission: "orders:read",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.order", async (ctx, input) => {
    const db = await getDb();
    const store = storeOf(ctx);
    const order = await db.order.findFirst({
      where: { id: input.id, storeId: store.id, principalId: ctx.principal.id },
      include: ORDER_INCLUDE,
    });
    if (!order) throw new AppError("not_found", `No order "${input.id}" in this store`, { path: "$.id" });
    return { body: orderToWire(order, { store, baseUrl: ctx.baseUrl, ucpVersion: ctx.ucpVersion }) };
  }),
});
