import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { RedeliveryOutputSchema } from "@/lib/ucp/output-schemas";

import { listDeliveries } from "./list-deliveries";
import { redeliverWebhook as queueAgain } from "./manage-deliveries";

// redeliver_webhook / POST /s/<slug>/webhook-deliveries/<id>/redeliver: sends one delivery again with a fresh
// retry schedule — same Webhook-Id, timestamp and bytes, so receivers that already have it drop the duplicate.
// Only for a delivery of an order the caller originated; needs `orders:read`.

export const redeliverWebhookOp = defineOperation({
  name: "redeliver_webhook",
  title: "Redeliver webhook",
  description:
    "Queue a webhook delivery (its webhook_id from list_webhook_deliveries or the Webhook-Id header) again, with a fresh retry schedule; the store then POSTs it to your webhook_url. Returns the delivery, state pending. Needs a platform key with orders:read.",
  errors: ["not_found"],
  scope: "store",
  input: z.object({ id: z.string().min(1).max(200) }),
  output: RedeliveryOutputSchema,
  mutates: true,
  tier: "token",
  buyerScope: null,
  permission: "orders:read",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  /** @throws AppError not_found */
  run: async (ctx, input) => {
    const db = await getDb();
    const store = storeOf(ctx);
    const delivery = await db.webhookDelivery.findFirst({
      // a platform re-sends only what went to its own webhook; the merchant's deliveries are the merchant's
      where: {
        id: input.id,
        storeId: store.id,
        endpoint: { target: "platform" },
        event: { order: { principalId: ctx.principal.id } },
      },
      select: { id: true, orderId: true },
    });
    if (!delivery)
      throw new AppError("not_found", `No webhook delivery "${input.id}" of yours here`, { path: "$.id" });
    await queueAgain(delivery.id, store.id, ctx.now);
    const [entry] = await listDeliveries(store.id, { deliveryId: delivery.id, audience: "platform" });
    return {
      body: { ucp: successEnvelope(["dev.ucp.shopping.order"], {}, ctx.ucpVersion), delivery: entry },
    };
  },
});
