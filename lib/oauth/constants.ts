// Lifetimes and names of the authorization server (issue #6; seed §5 rules 4–6; RFC 9700).

/** Buyer scopes advertised in `scopes_supported` (seed §5 rule 6). `orders:read` is a platform permission. */
export const BUYER_SCOPES = ["purchase:complete", "offline_access"] as const;
/**
 * UCP identity linking lists scopes as `{capability}:{name}` (CONTRACT.md §12, §18.1 #20), a pattern
 * `purchase:complete` fails. UCP platforms request the well-known checkout scope; it means the same here and is
 * granted as `purchase:complete`.
 */
export const SCOPE_ALIASES: Readonly<Record<string, (typeof BUYER_SCOPES)[number]>> = {
  "dev.ucp.shopping.checkout:manage": "purchase:complete",
};
/** Scope granted when the request names none. */
export const DEFAULT_BUYER_SCOPE = "purchase:complete";

/** Access tokens are short-lived ES256 JWTs (seed §5 rule 2: clients refresh on 401). */
export const ACCESS_TOKEN_TTL_SECONDS = 600;
/** Refresh tokens rotate on every use; an unused one lapses after 30 days. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** Authorization codes: single use and well under RFC 6749 §4.1.2's 10-minute ceiling. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 300;
/** How long a validated request waits at the consent page for the buyer. */
export const PENDING_AUTHORIZATION_TTL_SECONDS = 600;

/** CIMD documents: cached about 600 s (seed §5 rule 4), at most 5 kB, at most 3 redirects. */
export const CIMD_CACHE_SECONDS = 600;
export const CIMD_MAX_BYTES = 5 * 1024;
export const CIMD_MAX_REDIRECTS = 3;
export const CIMD_TIMEOUT_MS = 5_000;

/** RFC 9068 §2.1: the JWT access-token media type. */
export const ACCESS_TOKEN_TYP = "at+jwt";

export const AUTHORIZE_PATH = "/ucp/oauth2/authorize";
export const TOKEN_PATH = "/ucp/oauth2/token";
export const REVOCATION_PATH = "/ucp/oauth2/revoke";
export const JWKS_PATH = "/ucp/oauth2/jwks";
export const CONSENT_PATH = "/oauth/consent";
export const ACCOUNT_MCP_PATH = "/account/mcp";
