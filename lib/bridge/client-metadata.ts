// The stand-alone bridge's OAuth client identity (`bridge login`): a Client ID Metadata Document
// (draft-ietf-oauth-client-id-metadata-document) served by the service it logs in to, at a stable URL, so the client
// id is that URL and nothing has to be registered. A public native client (RFC 8252): no secret, PKCE, and a
// loopback redirect on whatever port the bridge gets (§7.3: the authorization server ignores the port of a
// registered 127.0.0.1 / [::1] redirect URI). Its scopes: buying (crypto purchases, allowances) and offline_access,
// which is what yields the refresh token the bridge refreshes with.

export const BRIDGE_CLIENT_METADATA_PATH = "/bridge/client-metadata.json";
export const BRIDGE_CLIENT_NAME = "Agent Commerce Bridge";
export const BRIDGE_LOGIN_SCOPE = "purchase:complete offline_access";
export const BRIDGE_LOOPBACK_CALLBACK_PATH = "/callback";

/** The bridge's client id for the service at `baseUrl`: the URL of its metadata document there. */
export const bridgeClientId = (baseUrl: string): string => `${baseUrl}${BRIDGE_CLIENT_METADATA_PATH}`;

/** The document itself (client_id equals its own URL, draft §4). */
export const bridgeClientMetadata = (baseUrl: string) => ({
  client_id: bridgeClientId(baseUrl),
  client_name: BRIDGE_CLIENT_NAME,
  client_uri: baseUrl,
  redirect_uris: [
    `http://127.0.0.1${BRIDGE_LOOPBACK_CALLBACK_PATH}`,
    `http://[::1]${BRIDGE_LOOPBACK_CALLBACK_PATH}`,
  ],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  scope: BRIDGE_LOGIN_SCOPE,
});
