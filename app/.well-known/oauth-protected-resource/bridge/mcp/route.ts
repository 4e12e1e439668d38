import { bridgeProtectedResourceMetadata } from "@/lib/bridge/identity";
import { getBaseUrl } from "@/lib/config/env";

export const dynamic = "force-dynamic";

// RFC 9728 §3.1: metadata of the resource {base_url}/bridge/mcp (the mounted bridge), pointing at our AS.
export const GET = () =>
  Response.json(
    bridgeProtectedResourceMetadata({
      bridgeUrl: `${getBaseUrl()}/bridge`,
      authorizationServer: getBaseUrl(),
    }),
  );
