import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";

import { verifiesChallenge } from "../checks/pkce";
import type { AuthenticatedClient } from "../client-auth";
import { hashToken } from "../tokens";
import { issueTokenSet, revokeFamily, type TokenResponse } from "./token-set";

// grant_type=authorization_code (seed §5 rule 5: code, code_verifier, client_id, redirect_uri). The code is single
// use, short-lived, and bound to the client, the exact redirect_uri and the PKCE challenge. A replayed code is
// refused and also revokes every token its first exchange issued (RFC 9700 §4.2.4; RFC 6749 §4.1.2).

const invalidGrant = (message: string) => new AppError("invalid_grant", message);

const required = (form: URLSearchParams, name: string): string => {
  const value = form.get(name);
  if (!value) throw new AppError("invalid_request", `${name} is required`);
  return value;
};

/** @throws AppError invalid_request, unauthorized_client, invalid_grant */
export const exchangeAuthorizationCode = async (
  form: URLSearchParams,
  client: AuthenticatedClient,
  { baseUrl, now }: { baseUrl: string; now: Date },
): Promise<TokenResponse> => {
  if (client.kind !== "public") {
    throw new AppError("unauthorized_client", "Registered platform clients use client_credentials only");
  }
  const code = required(form, "code");
  const redirectUri = required(form, "redirect_uri");
  const verifier = form.get("code_verifier");
  if (!verifier) throw new AppError("invalid_request", "code_verifier is required (PKCE)");

  const db = await getDb();
  const row = await db.oAuthAuthorizationCode.findUnique({ where: { codeHash: hashToken(code) } });
  if (!row) throw invalidGrant("Unknown authorization code");
  if (row.consumedAt) {
    if (row.familyId) await revokeFamily(row.familyId, "code_replay", now);
    throw invalidGrant("The authorization code was already used; the tokens it issued are revoked");
  }
  if (row.expiresAt <= now) throw invalidGrant("The authorization code has expired");
  if (row.clientId !== client.clientId)
    throw invalidGrant("The authorization code was issued to another client");
  if (row.redirectUri !== redirectUri)
    throw invalidGrant("redirect_uri differs from the authorization request");
  if (!verifiesChallenge(verifier, row.codeChallenge))
    throw invalidGrant("code_verifier does not match the challenge");

  const consent = await db.buyerConsent.findUnique({ where: { id: row.consentId } });
  if (!consent || consent.revokedAt) throw invalidGrant("The buyer revoked this consent");

  // The family exists before the code is marked used, so a concurrent replay always finds something to revoke.
  const familyId = newId("tokenFamily");
  await db.oAuthTokenFamily.create({
    data: {
      id: familyId,
      consentId: consent.id,
      clientId: row.clientId,
      buyerId: consent.buyerId,
      scopes: row.scopes,
      createdAt: now,
    },
  });
  const claimed = await db.oAuthAuthorizationCode.updateMany({
    where: { id: row.id, consumedAt: null },
    data: { consumedAt: now, familyId },
  });
  if (claimed.count !== 1) {
    await revokeFamily(familyId, "code_replay", now);
    const winner = await db.oAuthAuthorizationCode.findUniqueOrThrow({ where: { id: row.id } });
    if (winner.familyId) await revokeFamily(winner.familyId, "code_replay", now);
    throw invalidGrant("The authorization code was already used; the tokens it issued are revoked");
  }
  return issueTokenSet({
    baseUrl,
    now,
    familyId,
    consentId: consent.id,
    buyerId: consent.buyerId,
    clientId: row.clientId,
    scopes: row.scopes,
  });
};
