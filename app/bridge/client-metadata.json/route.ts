import { bridgeClientMetadata } from "@/lib/bridge/client-metadata";
import { getBaseUrl } from "@/lib/config/env";

export const dynamic = "force-dynamic";

// The stand-alone bridge's client metadata document (`bridge login`): its client id is this URL. Public and
// cacheable; the authorization server caches it ~600 s anyway.
export const GET = () =>
  Response.json(bridgeClientMetadata(getBaseUrl()), {
    headers: { "cache-control": "public, max-age=300" },
  });
