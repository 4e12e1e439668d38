import { discoveryRoute } from "@/lib/http/discovery-route";
import { routeMethods } from "@/lib/http/prelude";
import { buildProtectedResourceMetadata } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

// RFC 9728 metadata of the service as a protected resource (the buyer-bound REST and MCP endpoints).
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("oauth", {
  GET: discoveryRoute((_params, baseUrl) => buildProtectedResourceMetadata(baseUrl)),
});
