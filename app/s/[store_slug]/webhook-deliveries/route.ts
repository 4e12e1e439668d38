import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { listWebhookDeliveries } from "@/lib/webhooks/list-webhook-deliveries";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: ucpRoute(listWebhookDeliveries, { readsBody: false }),
});
