import { discoveryRoute } from "@/lib/http/discovery-route";
import { withMethods } from "@/lib/http/ucp-route";
import { handlerDocument } from "@/lib/ucp/handler-docs";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: discoveryRoute((params) => handlerDocument(String(params.handler), String(params.doc))),
});
