import { discoveryRoute } from "@/lib/http/discovery-route";
import { routeMethods } from "@/lib/http/prelude";
import { buildAuthorizationServerMetadata } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

// RFC 8414 authorization server metadata (seed §4; CONTRACT.md §12).
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("oauth", {
  GET: discoveryRoute((_params, baseUrl) => buildAuthorizationServerMetadata(baseUrl)),
});
