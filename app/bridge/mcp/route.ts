import { handleBridgeMcp } from "@/lib/bridge/http";
import { mountedBridgeOptions } from "@/lib/bridge/mounted";
import { bridgeKeyFile } from "@/lib/config/constants";
import { getBaseUrl } from "@/lib/config/env";
import { handOverClientAddress, routeMethods } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

// The bridge's MCP endpoint (Streamable HTTP), mounted in this app at {base_url}/bridge: a client of the
// service's public surfaces. (BRIDGE_URL names a bridge deployed apart; this one is always {base_url}/bridge.)
// Through the request prelude like every route: the caller's rate limit (a bridge tool call counts once here, and
// its raw calls count at the service as any client's), the Request-Id echo, the access line, 405s in JSON-RPC.
// The caller's address as the prelude resolved it is handed to the bridge's calls in process, so the service
// keys their budgets and failed-authentication counters by the caller, not by the bridge's loopback socket and
// not by a header the caller wrote.
const handler = async (request: Request) =>
  handleBridgeMcp(request, {
    ...(await mountedBridgeOptions({
      baseUrl: getBaseUrl(),
      bridgeUrl: `${getBaseUrl()}/bridge`,
      keyFile: bridgeKeyFile(),
    })),
    callerAddress: handOverClientAddress,
  });

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("mcp", {
  POST: handler,
  GET: handler,
  DELETE: handler,
});
