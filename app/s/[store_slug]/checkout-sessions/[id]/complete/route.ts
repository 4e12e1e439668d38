import { completeCheckout } from "@/lib/checkout/completion/complete-checkout";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// UCP checkout REST: POST /checkout-sessions/{id}/complete with { payment, ap2 } (issue #5).
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(completeCheckout, { readsBody: true }),
});
