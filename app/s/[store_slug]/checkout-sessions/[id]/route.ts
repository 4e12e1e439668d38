import { getCheckout } from "@/lib/checkout/get-checkout";
import { updateCheckout } from "@/lib/checkout/update-checkout";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: ucpRoute(getCheckout, { readsBody: false }),
  PUT: ucpRoute(updateCheckout),
});
