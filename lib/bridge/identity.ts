import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

import { agentProfile, generateAgentKey, type AgentKey } from "@agent-commerce/agent-kit";

// Whose identity (issue "The bridge"): each bridge deployment is an agent with its own UCP profile and ES256 key.
// The key lives in a file, never in the service's database (the bridge is only a client): created on first use
// with mode 0600, read afterwards, so the kid published in the profile stays stable across restarts. The hosted
// bridge keeps it beside the demo platform key (BRIDGE_KEY_FILE overrides); a stand-alone one takes --key-file.

const isKey = (value: unknown): value is AgentKey => {
  const key = value as Partial<AgentKey> | null;
  return (
    typeof key?.kid === "string" &&
    typeof key.privateJwk === "object" &&
    key.privateJwk !== null &&
    typeof key.publicJwk === "object" &&
    key.publicJwk !== null
  );
};

const readKey = async (file: string): Promise<AgentKey> => {
  const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
  if (!isKey(parsed)) throw new Error(`${file} is not a bridge key file ({kid, privateJwk, publicJwk})`);
  return parsed;
};

/** The bridge's signing key from `file`, generated and written there (0600) when the file does not exist yet. */
export const loadOrCreateBridgeKey = async (file: string): Promise<AgentKey> => {
  try {
    return await readKey(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const key = generateAgentKey(`bridge-${Date.now().toString(36)}`);
  await mkdir(path.dirname(file), { recursive: true });
  try {
    // "wx": two processes starting at once must not each publish a different key
    await writeFile(file, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readKey(file);
    throw error;
  }
};

/** The bridge's UCP agent profile: the shopping capabilities and its public signing key (no webhook receiver). */
export const bridgeProfile = (key: AgentKey) => agentProfile({ signingKeys: [key.publicJwk] });

/**
 * RFC 9728 protected-resource metadata of the bridge's MCP endpoint: buyer bearers come from the service's
 * authorization server (the service's base URL is its issuer), which accepts the bridge URL as `resource`.
 */
export const bridgeProtectedResourceMetadata = ({
  bridgeUrl,
  authorizationServer,
}: {
  bridgeUrl: string;
  authorizationServer: string;
}) => ({
  resource: `${bridgeUrl}/mcp`,
  authorization_servers: [authorizationServer],
  scopes_supported: ["purchase:complete", "offline_access"],
  bearer_methods_supported: ["header"],
  resource_name: "Agent Commerce Service bridge (MCP)",
});

/** RFC 9728 §3: where a client finds the metadata of `{bridgeUrl}/mcp`. */
export const bridgeProtectedResourceMetadataUrl = (bridgeUrl: string): string => {
  const url = new URL(`${bridgeUrl}/mcp`);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
};
