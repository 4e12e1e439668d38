import { getBaseUrl } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import { bearerChallenge } from "@/lib/oauth/bearer-challenge";

// Who is calling, and how much we trust it (seed §5, DECISIONS.md B7).
// Tiers: anonymous < token (platform key or buyer bearer) < signed (a valid RFC 9421 signature by a key in the
// agent profile named in UCP-Agent; lib/agents/verify-agent-signature.ts). A signature with no other credential
// identifies the agent itself (kind "agent", keyed by its profile URL); with a key or bearer it lifts that
// principal to the signed tier.

export const PLATFORM_PERMISSIONS = ["purchase:complete", "orders:read", "orders:request"] as const;
export type PlatformPermission = (typeof PLATFORM_PERMISSIONS)[number];

export type TrustTier = "anonymous" | "token" | "signed";
const TIER_RANK: Record<TrustTier, number> = { anonymous: 0, token: 1, signed: 2 };

export type Principal =
  | { kind: "anonymous"; id: "anonymous" }
  | { kind: "platform"; id: string; keyId: string; name: string; permissions: readonly string[] }
  | { kind: "buyer"; id: string; buyerId: string; clientId: string; scopes: readonly string[] }
  | { kind: "agent"; id: string; profileUrl: string };

export const ANONYMOUS: Principal = { kind: "anonymous", id: "anonymous" };

/** The principal id of a buyer's bearer: the buyer and the agent (OAuth client) the token was issued to. */
export const buyerAgentPrincipalId = (buyerId: string, clientId: string): string =>
  `${buyerPrincipalPrefix(buyerId)}${clientId}`;

/** Every principal id of one buyer's agents starts with this. */
export const buyerPrincipalPrefix = (buyerId: string): string => `buyer:${buyerId}:agent:`;

/** The principal a verified signature identifies when the request carries no key or bearer. */
export const agentPrincipal = (profileUrl: string): Principal => ({
  kind: "agent",
  id: `agent:${profileUrl}`,
  profileUrl,
});

/** The tier a principal reaches; `isSigned` when the request carried a verified RFC 9421 signature. */
export const tierOf = (principal: Principal, isSigned = false): TrustTier => {
  if (principal.kind === "agent") return "signed";
  if (principal.kind === "anonymous") return "anonymous";
  return isSigned ? "signed" : "token";
};

/** @throws AppError insufficient_trust when `actual` is below `required`. */
export const assertTier = (actual: TrustTier, required: TrustTier): void => {
  if (TIER_RANK[actual] >= TIER_RANK[required]) return;
  throw new AppError(
    "insufficient_trust",
    required === "token"
      ? "This operation needs the token tier: send X-API-Key with a platform key (the operator creates one with " +
          "npm run admin -- create-api-key; the embedded demo prints one when it makes it) or a buyer's bearer token " +
          "(OAuth 2.1: /.well-known/oauth-authorization-server)"
      : `This operation needs the ${required} tier (an RFC 9421 signature by a key in your agent profile)`,
    { details: { required_tier: required, tier: actual } },
  );
};

/** Platform keys carry permissions; buyer tokens carry OAuth scopes. */
export const hasPermission = (principal: Principal, permission: string): boolean => {
  if (principal.kind === "platform") return principal.permissions.includes(permission);
  if (principal.kind === "buyer") return principal.scopes.includes(permission);
  return false;
};

/**
 * The refusal of a buyer-bound call made without the buyer's bearer (seed §5 rules 1 and 4): 401, because only an
 * OAuth sign-in of the buyer can satisfy it. The message names OAuth and the scope, never an API key; the
 * renderers add the Bearer challenge (WWW-Authenticate with resource_metadata, RFC 6750 §3, RFC 9728 §5.1) that
 * OAuth clients start authorization from (lib/http/auth-challenge.ts).
 */
export const buyerIdentityRequired = (
  what: string,
  principal: Principal,
  scope: string = "purchase:complete",
): AppError => {
  const signIn =
    `sign the buyer in over OAuth 2.1 (authorization code with PKCE; the authorization server is described at ` +
    `${getBaseUrl()}/.well-known/oauth-authorization-server) asking for scope ${scope}`;
  if (principal.kind !== "platform") {
    return new AppError(
      "identity_required",
      `${what} acts for a buyer: ${signIn}, then send the buyer's access token as Authorization: Bearer <token>`,
      { details: { required_scope: scope } },
    );
  }
  // a platform principal is an X-API-Key, or a client_credentials token (the platform's own, not a buyer's)
  const why = principal.id.startsWith("oauth-client:")
    ? "This request's bearer is a client_credentials token, which stands for the platform, not a buyer"
    : "This request carried X-API-Key, which wins when both arrive, so the buyer was not loaded";
  return new AppError(
    "identity_required",
    `${what} acts for a buyer, so a platform credential cannot call it: ${signIn}, then send the buyer's access token ALONE (Authorization: Bearer <token>). ${why}`,
    { details: { required_scope: scope } },
  );
};

/**
 * Who may call an operation at all, before its permission: a buyer-bound operation answers a caller without the
 * buyer's bearer with 401 identity_required first (so an anonymous caller is told to sign the buyer in, not to get
 * an API key), then the tier.
 * @throws AppError identity_required, insufficient_trust
 */
export const assertCanCall = (
  principal: Principal,
  tier: TrustTier,
  op: { name: string; tier: TrustTier; buyerScope: string | null; buyerOnly?: boolean },
): void => {
  if (op.buyerOnly && principal.kind !== "buyer") {
    throw buyerIdentityRequired(op.name, principal, op.buyerScope ?? undefined);
  }
  assertTier(tier, op.tier);
};

/**
 * The one authorization check of an operation, after the tier: a platform key needs the operation's permission, a
 * buyer's bearer the operation's OAuth scope (none: buyer tokens cannot call it).
 * @throws AppError identity_required, insufficient_scope
 */
export const assertAllowed = (
  principal: Principal,
  op: { name: string; permission?: string; buyerScope: string | null; buyerOnly?: boolean },
): void => {
  if (op.buyerOnly && principal.kind !== "buyer") {
    throw buyerIdentityRequired(op.name, principal, op.buyerScope ?? undefined);
  }
  if (principal.kind === "buyer") {
    if (op.buyerScope === null) {
      throw new AppError(
        "insufficient_scope",
        `${op.name} is not available with a buyer token: it needs a platform key with ${op.permission ?? "a permission"}`,
        { details: { required: op.permission ? [op.permission] : [] } },
      );
    }
    assertPermission(principal, op.buyerScope);
    return;
  }
  if (op.permission) assertPermission(principal, op.permission);
};

/** @throws AppError insufficient_scope when the credential lacks `permission`. */
export const assertPermission = (principal: Principal, permission: string): void => {
  if (hasPermission(principal, permission)) return;
  const who =
    principal.kind === "buyer" ? "The buyer token lacks scope" : "The platform key lacks permission";
  // UCP identity linking: a buyer token gets a Bearer challenge naming the scope, so the client can step up
  const headers =
    principal.kind === "buyer"
      ? {
          "WWW-Authenticate": bearerChallenge({
            baseUrl: getBaseUrl(),
            error: "insufficient_scope",
            scope: [...new Set([...principal.scopes, permission])].join(" "),
          }),
        }
      : undefined;
  throw new AppError("insufficient_scope", `${who} ${permission}`, {
    details: { required: [permission] },
    headers,
  });
};
