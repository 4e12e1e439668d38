import type { BridgeOptions } from "./http";
import { bridgeProtectedResourceMetadataUrl, loadOrCreateBridgeKey } from "./identity";

// The bridge mounted in this app ({base_url}/bridge): a client of the same service over HTTP, like any agent,
// with its key from a file (identity.ts). The key is read once per process.

let key: ReturnType<typeof loadOrCreateBridgeKey> | undefined;

export const mountedBridgeOptions = async ({
  baseUrl,
  bridgeUrl,
  keyFile,
}: {
  baseUrl: string;
  bridgeUrl: string;
  keyFile: string;
}): Promise<BridgeOptions> => {
  key ??= loadOrCreateBridgeKey(keyFile).catch((error: unknown) => {
    key = undefined;
    throw error;
  });
  return {
    baseUrl,
    agentProfileUrl: `${bridgeUrl}/.well-known/ucp`,
    key: await key,
    challengeMetadataUrl: bridgeProtectedResourceMetadataUrl(bridgeUrl),
  };
};
