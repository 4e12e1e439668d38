import "server-only";

import { getDb } from "@/lib/config/db";
import { rowCache } from "@/lib/config/row-cache";

import { verifyAccessTokenJwt } from "./tokens";

// Resource-side check of an access token: the JWT itself (signature, alg, typ, iss, aud, exp), then that its family
// and the buyer's consent are still alive, or that the platform client is not revoked.
//
// A token that passed is kept (lib/config/row-cache.ts) for the bound every cached row has: a revocation made
// through this instance empties the cache with its write (a family, a consent, a client, or the server's key) and
// is seen by the next call; one made on another instance is seen within ROW_CACHE_TTL_MS (2 s by default, 5 s at
// most). A token never outlives its `exp` in the cache, and a refused token is never kept: it is checked afresh
// each time. Without it every bearer call (each of a crypto purchase's calls) would check an ES256 signature and
// read the token's family and consent.

export type VerifiedAccess =
  | { kind: "buyer"; buyerId: string; clientId: string; scopes: string[] }
  | { kind: "client"; clientId: string; name: string; scopes: string[] };

/** Touch the consent's last-used time at most once a minute. */
const LAST_USED_GRANULARITY_MS = 60_000;

type Verified = {
  access: VerifiedAccess;
  /** The token's `exp`, in ms. */
  expiresAt: number;
  /** The buyer's consent and when it was last used, as read (a touch empties the cache, so the next read is fresh). */
  consent: { id: string; lastUsedAt: number } | null;
};

const verifiedTokens = rowCache<Verified>([
  "oauth_token_families",
  "buyer_consents",
  "oauth_clients",
  "oauth_server_keys",
]);

const verify = async (token: string, baseUrl: string, now: Date): Promise<Verified | null> => {
  const claims = await verifyAccessTokenJwt(token, { baseUrl, now });
  if (!claims) return null;
  const scopes = claims.scope.split(" ").filter(Boolean);
  const expiresAt = claims.exp * 1000;
  const db = await getDb();
  if (claims.kind === "client") {
    if (claims.sub !== claims.client_id) return null;
    const client = await db.oAuthClient.findUnique({ where: { clientId: claims.client_id } });
    if (!client || client.revokedAt) return null;
    return {
      access: { kind: "client", clientId: client.clientId, name: client.name, scopes },
      expiresAt,
      consent: null,
    };
  }
  const family = await db.oAuthTokenFamily.findUnique({
    where: { id: claims.sid ?? "" },
    include: { consent: true },
  });
  if (!family || family.revokedAt || family.consent.revokedAt) return null;
  if (family.buyerId !== claims.sub || family.clientId !== claims.client_id) return null;
  return {
    access: { kind: "buyer", buyerId: claims.sub, clientId: claims.client_id, scopes },
    expiresAt,
    consent: { id: family.consentId, lastUsedAt: family.consent.lastUsedAt?.getTime() ?? 0 },
  };
};

export const verifyAccessToken = async (
  token: string,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<VerifiedAccess | null> => {
  const verified = await verifiedTokens.get(`${baseUrl} ${token}`, () => verify(token, baseUrl, now));
  if (!verified || verified.expiresAt <= now.getTime()) return null;
  if (verified.consent && now.getTime() - verified.consent.lastUsedAt > LAST_USED_GRANULARITY_MS) {
    const db = await getDb();
    await db.buyerConsent.update({ where: { id: verified.consent.id }, data: { lastUsedAt: now } });
  }
  return verified.access;
};
