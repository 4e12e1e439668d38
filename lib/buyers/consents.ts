import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";

// Consents = linked agents: one row per buyer and client (issue #6 §2, §7). Consent is not spending authorization
// (seed §5 rule 7). Revoking one revokes every token family under it, so its refresh and access tokens die at once.

export type LinkedAgent = {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  logoUri: string | null;
  scopes: string[];
  grantedAt: Date;
  lastUsedAt: Date | null;
};

export type ClientDisplay = {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  logoUri: string | null;
};

/** Records (or renews) the buyer's consent for a client; the scopes accumulate over approvals. */
export const recordConsent = async ({
  buyerId,
  client,
  scopes,
  now,
}: {
  buyerId: string;
  client: ClientDisplay;
  scopes: readonly string[];
  now: Date;
}): Promise<{ consentId: string }> => {
  const db = await getDb();
  const existing = await db.buyerConsent.findUnique({
    where: { buyerId_clientId: { buyerId, clientId: client.clientId } },
  });
  const display = { clientName: client.clientName, clientUri: client.clientUri, logoUri: client.logoUri };
  if (!existing) {
    const row = await db.buyerConsent.create({
      data: {
        id: newId("consent"),
        buyerId,
        clientId: client.clientId,
        scopes: [...scopes],
        grantedAt: now,
        ...display,
      },
    });
    return { consentId: row.id };
  }
  // A revoked consent starts over: the old scopes do not come back.
  const base = existing.revokedAt ? [] : existing.scopes;
  const row = await db.buyerConsent.update({
    where: { id: existing.id },
    data: {
      scopes: [...new Set([...base, ...scopes])],
      grantedAt: existing.revokedAt ? now : existing.grantedAt,
      revokedAt: null,
      ...display,
    },
  });
  return { consentId: row.id };
};

/** The buyer's linked agents: active consents, newest first. */
export const listLinkedAgents = async (buyerId: string): Promise<LinkedAgent[]> => {
  const db = await getDb();
  const rows = await db.buyerConsent.findMany({
    where: { buyerId, revokedAt: null },
    orderBy: { grantedAt: "desc" },
  });
  return rows.map((r) => ({
    clientId: r.clientId,
    clientName: r.clientName,
    clientUri: r.clientUri,
    logoUri: r.logoUri,
    scopes: r.scopes,
    grantedAt: r.grantedAt,
    lastUsedAt: r.lastUsedAt,
  }));
};

/**
 * Revokes the buyer's consent for a client and, in the same transaction, every token family under it: its
 * refresh tokens stop refreshing and its access tokens fail verification on the next request.
 * @throws AppError not_found when the buyer has no active consent for that client
 */
export const revokeLinkedAgent = async ({
  buyerId,
  clientId,
  now = new Date(),
}: {
  buyerId: string;
  clientId: string;
  now?: Date;
}): Promise<LinkedAgent> => {
  const db = await getDb();
  const consent = await db.buyerConsent.findUnique({ where: { buyerId_clientId: { buyerId, clientId } } });
  if (!consent || consent.revokedAt) throw new AppError("not_found", `No linked agent ${clientId}`);
  await db.$transaction([
    db.buyerConsent.update({ where: { id: consent.id }, data: { revokedAt: now } }),
    db.oAuthTokenFamily.updateMany({
      where: { consentId: consent.id, revokedAt: null },
      data: { revokedAt: now, revokedReason: "revoked_by_buyer" },
    }),
  ]);
  return {
    clientId: consent.clientId,
    clientName: consent.clientName,
    clientUri: consent.clientUri,
    logoUri: consent.logoUri,
    scopes: consent.scopes,
    grantedAt: consent.grantedAt,
    lastUsedAt: consent.lastUsedAt,
  };
};
