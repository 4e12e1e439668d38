import { cancelCheckout } from "@/lib/checkout/cancel-checkout";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// UCP checkout REST: POST /checkout-sessions/{id}/cancel with no body.
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(cancelCheckout, { readsBody: false }),
});
