import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { requestOrderRefund } from "@/lib/orders/order-requests";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(requestOrderRefund),
});
