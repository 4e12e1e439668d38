import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { requestOrderCancellation } from "@/lib/orders/order-requests";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  POST: ucpRoute(requestOrderCancellation),
});
