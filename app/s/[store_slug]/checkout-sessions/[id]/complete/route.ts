import { completeCheckout } from "@/lib/checkout/completion/complete-checkout";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { signedByStore } from "@/lib/stores/sign-response";

export const dynamic = "force-dynamic";

// UCP checkout REST: POST /checkout-sessions/{id}/complete with { payment, ap2 }. Its answers are
// signed by the store (UCP signatures.md recommends response signatures on checkout completion).
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: signedByStore(ucpRoute(completeCheckout, { readsBody: true })),
});
