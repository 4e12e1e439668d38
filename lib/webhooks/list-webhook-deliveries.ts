import "server-only";

import { z } from "zod";

import { successEnvelope } from "@/lib/core/envelope";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { DeliveriesOutputSchema } from "@/lib/ucp/output-schemas";

import { listDeliveries } from "./list-deliveries";

// list_webhook_deliveries / GET /s/<slug>/webhook-deliveries: the delivery log for the orders the
// caller originated: each Webhook-Id with its target, state and every attempt (time, status or error, latency,
// response snippet). Needs `orders:read`.

export const ListWebhookDeliveriesInputSchema = z.object({
  order_id: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

export const listWebhookDeliveries = defineOperation({
  name: "list_webhook_deliveries",
  title: "List webhook deliveries",
  description:
    "The delivery log of the webhooks this store sent to your platform's webhook_url for your orders, newest first: state (pending, delivered, dead) and every attempt (time, HTTP status or error, latency). Use it to see why your receiver missed an event; then redeliver_webhook, or get_order to reconcile. Needs a platform key with orders:read.",
  scope: "store",
  input: ListWebhookDeliveriesInputSchema,
  output: DeliveriesOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: null,
  permission: "orders:read",
  mcp: {
    namespace: "deliveries",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx, input) => {
    const store = storeOf(ctx);
    const deliveries = await listDeliveries(store.id, {
      principalId: ctx.principal.id,
      audience: "platform",
      orderId: input.order_id,
      limit: input.limit,
    });
    return { body: { ucp: successEnvelope(["dev.ucp.shopping.order"], {}, ctx.ucpVersion), deliveries } };
  },
});
