import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

// Merchant/operator actions on deliveries: redeliver one (a fresh schedule, same Webhook-Id and bytes) and
// re-enable an endpoint that was disabled after sustained failure.

/** @throws AppError not_found */
export const redeliverWebhook = async (deliveryId: string, storeId: string, now = new Date()) => {
  const db = await getDb();
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: deliveryId, storeId },
    data: { state: "pending", attempts: 0, nextAttemptAt: now, lockedUntil: null },
  });
  if (count === 0) throw new AppError("not_found", `No webhook delivery ${deliveryId} in this store`);
};

/** @throws AppError not_found */
export const enableWebhookEndpoint = async (endpointId: string, storeId: string) => {
  const db = await getDb();
  const { count } = await db.webhookEndpoint.updateMany({
    where: { id: endpointId, storeId },
    data: { disabledAt: null, disabledReason: null, consecutiveFailures: 0, failingSince: null },
  });
  if (count === 0) throw new AppError("not_found", `No webhook endpoint ${endpointId} in this store`);
};
