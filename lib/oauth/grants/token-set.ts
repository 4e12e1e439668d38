import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";

import { formatScope } from "../checks/scope";
import { REFRESH_TOKEN_TTL_SECONDS } from "../constants";
import { hashToken, issueAccessToken, newOpaqueToken } from "../tokens";

// The successful token response (RFC 6749 §5.1) for a buyer token family: an access token, and a rotating
// refresh token only when the grant includes offline_access (seed §5 rule 6).

export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
};

export const issueTokenSet = async ({
  baseUrl,
  now,
  familyId,
  consentId,
  buyerId,
  clientId,
  scopes,
  refreshScopes = scopes,
}: {
  baseUrl: string;
  now: Date;
  familyId: string;
  consentId: string;
  buyerId: string;
  clientId: string;
  /** Scopes of this access token. */
  scopes: readonly string[];
  /** Scopes of the family (a narrowed refresh keeps the family's full set for the next refresh). */
  refreshScopes?: readonly string[];
}): Promise<TokenResponse> => {
  const db = await getDb();
  const { accessToken, expiresIn } = await issueAccessToken({
    baseUrl,
    subject: buyerId,
    clientId,
    scopes,
    kind: "buyer",
    familyId,
    now,
  });
  const body: TokenResponse = {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: expiresIn,
    scope: formatScope(scopes),
  };
  if (refreshScopes.includes("offline_access")) {
    const refreshToken = newOpaqueToken("ort");
    await db.oAuthRefreshToken.create({
      data: {
        id: newId("refreshToken"),
        tokenHash: hashToken(refreshToken),
        familyId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
      },
    });
    body.refresh_token = refreshToken;
  }
  await db.buyerConsent.update({ where: { id: consentId }, data: { lastUsedAt: now } });
  return body;
};

/** Revokes a whole token family: its refresh tokens stop working and its access tokens fail verification. */
export const revokeFamily = async (familyId: string, reason: string, now: Date): Promise<void> => {
  const db = await getDb();
  await db.oAuthTokenFamily.updateMany({
    where: { id: familyId, revokedAt: null },
    data: { revokedAt: now, revokedReason: reason },
  });
};
