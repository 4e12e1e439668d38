import { handleBridgeMcp } from "@/lib/bridge/http";
import { mountedBridgeOptions } from "@/lib/bridge/mounted";
import { bridgeKeyFile } from "@/lib/config/constants";
import { getBaseUrl } from "@/lib/config/env";

export const dynamic = "force-dynamic";

// The bridge's MCP endpoint (Streamable HTTP), mounted in this app at {base_url}/bridge: a client of the
// service's public surfaces. (BRIDGE_URL names a bridge deployed apart; this one is always {base_url}/bridge.)
const handler = async (request: Request) =>
  handleBridgeMcp(
    request,
    await mountedBridgeOptions({
      baseUrl: getBaseUrl(),
      bridgeUrl: `${getBaseUrl()}/bridge`,
      keyFile: bridgeKeyFile(),
    }),
  );

export const POST = handler;
export const GET = handler;
export const DELETE = handler;
