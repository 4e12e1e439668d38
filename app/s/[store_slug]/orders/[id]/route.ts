import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { getOrder } from "@/lib/orders/get-order";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: ucpRoute(getOrder, { readsBody: false }),
});
