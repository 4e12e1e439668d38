import { handleBridgeMcp } from "@/lib/bridge/http";
import { mountedBridgeOptions } from "@/lib/bridge/mounted";
import { bridgeKeyFile } from "@/lib/config/constants";
import { getBaseUrl, getBridgeUrl } from "@/lib/config/env";

export const dynamic = "force-dynamic";

// The bridge's MCP endpoint (Streamable HTTP), mounted in this app: a client of the service's public surfaces.
const handler = async (request: Request) =>
  handleBridgeMcp(
    request,
    await mountedBridgeOptions({
      baseUrl: getBaseUrl(),
      bridgeUrl: getBridgeUrl(),
      keyFile: bridgeKeyFile(),
    }),
  );

export const POST = handler;
export const GET = handler;
export const DELETE = handler;
