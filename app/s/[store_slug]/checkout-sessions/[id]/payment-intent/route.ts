import { prepareCheckoutPayment } from "@/lib/checkout/crypto/prepare-checkout-payment";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// Prepare a crypto payment (seed §4): POST /s/<slug>/checkout-sessions/<id>/payment-intent.
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(prepareCheckoutPayment),
});
