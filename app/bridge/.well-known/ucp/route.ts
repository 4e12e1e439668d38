import { bridgeProfile, loadOrCreateBridgeKey } from "@/lib/bridge/identity";
import { bridgeKeyFile } from "@/lib/config/constants";

export const dynamic = "force-dynamic";

// The mounted bridge's UCP agent profile: stores fetch its signing key from here to verify its mandates.
export const GET = async () =>
  Response.json(bridgeProfile(await loadOrCreateBridgeKey(bridgeKeyFile())), {
    headers: { "cache-control": "public, max-age=60" },
  });
