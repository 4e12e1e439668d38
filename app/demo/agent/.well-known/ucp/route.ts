import { discoveryRoute } from "@/lib/http/discovery-route";
import { withMethods } from "@/lib/http/ucp-route";
import { buildExampleAgentProfile } from "@/lib/ucp/example-agent-profile";

export const dynamic = "force-dynamic";

// An example agent (platform) profile for demos: send UCP-Agent: profile="{base_url}/demo/agent/.well-known/ucp".
export const { GET, POST, PUT, PATCH, DELETE } = withMethods({
  GET: discoveryRoute((_params, baseUrl) => buildExampleAgentProfile(baseUrl)),
});
