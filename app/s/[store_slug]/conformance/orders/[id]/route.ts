import { conformanceOnly } from "@/lib/conformance/routes";
import { ucpRoute, withMethods } from "@/lib/http/ucp-route";
import { getOrder } from "@/lib/orders/get-order";

export const dynamic = "force-dynamic";

// The store's order read under the conformance base URL (docs/conformance.md): the same operation as
// /s/<slug>/orders/{id}, in conformance mode only.
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: conformanceOnly(ucpRoute(getOrder, { readsBody: false })),
});
