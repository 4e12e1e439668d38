import "server-only";

import { getDb } from "@/lib/config/db";

import { verifyAccessTokenJwt } from "./tokens";

// Resource-side check of an access token: the JWT itself (signature, alg, typ, iss, aud, exp), then that its family
// and the buyer's consent are still alive (revocation is immediate), or that the platform client is not revoked.

export type VerifiedAccess =
  | { kind: "buyer"; buyerId: string; clientId: string; scopes: string[] }
  | { kind: "client"; clientId: string; name: string; scopes: string[] };

/** Touch the consent's last-used time at most once a minute. */
const LAST_USED_GRANULARITY_MS = 60_000;

export const verifyAccessToken = async (
  token: string,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<VerifiedAccess | null> => {
  const claims = await verifyAccessTokenJwt(token, { baseUrl, now });
  if (!claims) return null;
  const scopes = claims.scope.split(" ").filter(Boolean);
  const db = await getDb();
  if (claims.kind === "client") {
    if (claims.sub !== claims.client_id) return null;
    const client = await db.oAuthClient.findUnique({ where: { clientId: claims.client_id } });
    if (!client || client.revokedAt) return null;
    return { kind: "client", clientId: client.clientId, name: client.name, scopes };
  }
  const family = await db.oAuthTokenFamily.findUnique({
    where: { id: claims.sid ?? "" },
    include: { consent: true },
  });
  if (!family || family.revokedAt || family.consent.revokedAt) return null;
  if (family.buyerId !== claims.sub || family.clientId !== claims.client_id) return null;
  const last = family.consent.lastUsedAt?.getTime() ?? 0;
  if (now.getTime() - last > LAST_USED_GRANULARITY_MS) {
    await db.buyerConsent.update({ where: { id: family.consentId }, data: { lastUsedAt: now } });
  }
  return { kind: "buyer", buyerId: claims.sub, clientId: claims.client_id, scopes };
};
