import { discoveryRoute } from "@/lib/http/discovery-route";
import { routeMethods } from "@/lib/http/prelude";
import { ACCOUNT_MCP_PATH } from "@/lib/oauth/constants";
import { buildProtectedResourceMetadata } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

// RFC 9728 §3.1: metadata of the resource {base_url}/account/mcp, path inserted after the well-known prefix.
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("oauth", {
  GET: discoveryRoute((_params, baseUrl) => buildProtectedResourceMetadata(baseUrl, ACCOUNT_MCP_PATH)),
});
