import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { listOrderEvents } from "@/lib/webhooks/list-order-events";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: ucpRoute(listOrderEvents, { readsBody: false }),
});
