import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { redeliverWebhookOp } from "@/lib/webhooks/redeliver-webhook";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(redeliverWebhookOp, { readsBody: false }),
});
