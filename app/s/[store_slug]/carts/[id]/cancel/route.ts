import { cancelCart } from "@/lib/carts/cancel-cart";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

// UCP cart REST: POST /carts/{id}/cancel with no body.
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(cancelCart, { readsBody: false }),
});
