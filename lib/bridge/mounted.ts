import type { BridgeOptions } from "./http";
import { bridgeProtectedResourceMetadataUrl, loadOrCreateBridgeKey } from "./identity";

// The bridge mounted in this app ({base_url}/bridge): a client of the same service over HTTP, like any agent,
// with its key from a file (identity.ts). The key is read once per process.

/**
 * The mounted bridge's calls ask for answers uncompressed. They go to this same service, so a gzipped answer
 * costs this process twice (the service compresses it, the bridge's fetch inflates it) to save bytes on a hop
 * that is usually the host's own: about 2.7 ms of CPU a card purchase through the bridge, sampled. A bridge
 * deployed apart keeps fetch's default and takes gzip over its network.
 */
export const identityEncodingFetch = (url: string, init: RequestInit): Promise<Response> => {
  const headers = new Headers(init.headers);
  headers.set("accept-encoding", "identity");
  return fetch(url, { ...init, headers });
};

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
    fetch: identityEncodingFetch,
    key: await key,
    challengeMetadataUrl: bridgeProtectedResourceMetadataUrl(bridgeUrl),
  };
};
