import { routeMethods } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

// The example agent's order-webhook receiver (its profile's webhook_url): it accepts every delivery with 204 and
// keeps nothing, so stores configured to notify the example agent see successful deliveries, not failures. A
// real agent verifies the store's signature (the agent kit's verifyWebhook) and records the event.
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("webhook", {
  POST: async () => new Response(null, { status: 204 }),
});
