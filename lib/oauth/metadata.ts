import {
  ACCOUNT_MCP_PATH,
  AUTHORIZE_PATH,
  BUYER_SCOPES,
  JWKS_PATH,
  REVOCATION_PATH,
  SCOPE_ALIASES,
  TOKEN_PATH,
} from "./constants";

// Discovery documents of the authorization server: RFC 8414 (AS metadata) and RFC 9728 (protected resources),
// with the fields UCP identity linking requires (CONTRACT.md §12).

/** The issuer is the service's base URL, byte for byte (RFC 8414 §3.3; RFC 9207). */
export const issuerOf = (baseUrl: string): string => baseUrl;

export const buildAuthorizationServerMetadata = (baseUrl: string) => ({
  issuer: issuerOf(baseUrl),
  authorization_endpoint: `${baseUrl}${AUTHORIZE_PATH}`,
  token_endpoint: `${baseUrl}${TOKEN_PATH}`,
  revocation_endpoint: `${baseUrl}${REVOCATION_PATH}`,
  jwks_uri: `${baseUrl}${JWKS_PATH}`,
  scopes_supported: [...BUYER_SCOPES, ...Object.keys(SCOPE_ALIASES)],
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
  // RFC 9700 §2.1.1: S256 only, never plain
  code_challenge_methods_supported: ["S256"],
  // public CIMD clients use `none` + PKCE; registered platform clients use a secret (body or Basic)
  token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
  revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
  // draft-ietf-oauth-client-id-metadata-document: client_id may be the https URL of the client's metadata
  client_id_metadata_document_supported: true,
  // RFC 9207
  authorization_response_iss_parameter_supported: true,
  service_documentation: `${baseUrl}/`,
});

/** RFC 9728 §3: the well-known URL of a resource's metadata (path inserted after the well-known prefix). */
export const protectedResourceMetadataUrl = (baseUrl: string, resourcePath = ""): string =>
  `${baseUrl}/.well-known/oauth-protected-resource${resourcePath}`;

/** Resources we protect with buyer bearers: the service as a whole and the account MCP. */
export const PROTECTED_RESOURCE_PATHS = ["", ACCOUNT_MCP_PATH] as const;

export const buildProtectedResourceMetadata = (baseUrl: string, resourcePath = "") => ({
  resource: `${baseUrl}${resourcePath}`,
  authorization_servers: [issuerOf(baseUrl)],
  scopes_supported: [...BUYER_SCOPES],
  bearer_methods_supported: ["header"],
  resource_name:
    resourcePath === ACCOUNT_MCP_PATH
      ? "Agent Commerce Service buyer account (MCP)"
      : "Agent Commerce Service",
});
