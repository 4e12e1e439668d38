import { conformanceHandlerDocument } from "@/lib/conformance/payment-handlers";
import { discoveryRoute } from "@/lib/http/discovery-route";
import { withMethods } from "@/lib/http/ucp-route";
import { handlerDocument } from "@/lib/ucp/handler-docs";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: discoveryRoute(
    // the conformance store's test handlers publish theirs in conformance mode (lib/conformance)
    (params) =>
      conformanceHandlerDocument(String(params.handler), String(params.doc)) ??
      handlerDocument(String(params.handler), String(params.doc)),
  ),
});
