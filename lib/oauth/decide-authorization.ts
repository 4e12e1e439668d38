import "server-only";

import { recordConsent } from "@/lib/buyers/consents";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";

import { AUTHORIZATION_CODE_TTL_SECONDS } from "./constants";
import { authorizationResponseUrl } from "./start-authorization";
import { hashToken, newOpaqueToken } from "./tokens";

// The buyer's answer on the consent page. Approve: record the consent, mint a single-use code (only its hash is
// stored), redirect with code + state + iss. Deny: redirect with access_denied. Each request is decided once.

export type PendingAuthorization = {
  id: string;
  clientId: string;
  clientName: string;
  clientUri: string | null;
  logoUri: string | null;
  redirectUri: string;
  scopes: string[];
  expiresAt: Date;
};

/** A request still waiting for the buyer, or null when unknown, expired or already decided. */
export const getPendingAuthorization = async (
  id: string,
  now = new Date(),
): Promise<PendingAuthorization | null> => {
  const db = await getDb();
  const row = await db.oAuthPendingAuthorization.findUnique({ where: { id } });
  if (!row || row.decidedAt || row.expiresAt <= now) return null;
  return {
    id: row.id,
    clientId: row.clientId,
    clientName: row.clientName,
    clientUri: row.clientUri,
    logoUri: row.logoUri,
    redirectUri: row.redirectUri,
    scopes: row.scopes,
    expiresAt: row.expiresAt,
  };
};

/**
 * Decides a pending request for a signed-in buyer and returns where to send the browser.
 * @throws AppError invalid_request when the request is unknown, expired or already decided
 */
export const decideAuthorization = async ({
  requestId,
  buyerId,
  approve,
  baseUrl,
  now = new Date(),
}: {
  requestId: string;
  buyerId: string;
  approve: boolean;
  baseUrl: string;
  now?: Date;
}): Promise<{ location: string }> => {
  const db = await getDb();
  const claimed = await db.oAuthPendingAuthorization.updateMany({
    where: { id: requestId, decidedAt: null, expiresAt: { gt: now } },
    data: { decidedAt: now },
  });
  if (claimed.count !== 1) {
    throw new AppError("invalid_request", "This authorization request has expired or was already answered");
  }
  const pending = await db.oAuthPendingAuthorization.findUniqueOrThrow({ where: { id: requestId } });
  if (!approve) {
    return {
      location: authorizationResponseUrl(
        pending.redirectUri,
        {
          error: "access_denied",
          error_description: "The buyer denied the request",
          state: pending.state || undefined,
        },
        baseUrl,
      ),
    };
  }
  const { consentId } = await recordConsent({
    buyerId,
    client: {
      clientId: pending.clientId,
      clientName: pending.clientName,
      clientUri: pending.clientUri,
      logoUri: pending.logoUri,
    },
    scopes: pending.scopes,
    now,
  });
  const code = newOpaqueToken("oac");
  await db.oAuthAuthorizationCode.create({
    data: {
      id: newId("authorizationCode"),
      codeHash: hashToken(code),
      clientId: pending.clientId,
      consentId,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      scopes: pending.scopes,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
    },
  });
  return {
    location: authorizationResponseUrl(
      pending.redirectUri,
      { code, state: pending.state || undefined },
      baseUrl,
    ),
  };
};
