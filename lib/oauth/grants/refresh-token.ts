import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

import { narrowScopes } from "../checks/scope";
import type { AuthenticatedClient } from "../client-auth";
import { hashToken } from "../tokens";
import { issueTokenSet, revokeFamily, type TokenResponse } from "./token-set";

// grant_type=refresh_token (seed §5 rule 5): rotated on every use and each one single use; presenting a used one
// is reuse — a sign of theft — and revokes the whole family (RFC 9700 §4.14.2). Only with offline_access.

const invalidGrant = (message: string) => new AppError("invalid_grant", message);

/** @throws AppError invalid_request, unauthorized_client, invalid_grant, invalid_scope */
export const exchangeRefreshToken = async (
  form: URLSearchParams,
  client: AuthenticatedClient,
  { baseUrl, now }: { baseUrl: string; now: Date },
): Promise<TokenResponse> => {
  if (client.kind !== "public") {
    throw new AppError("unauthorized_client", "Registered platform clients use client_credentials only");
  }
  const presented = form.get("refresh_token");
  if (!presented) throw new AppError("invalid_request", "refresh_token is required");
  const db = await getDb();
  const row = await db.oAuthRefreshToken.findUnique({
    where: { tokenHash: hashToken(presented) },
    include: { family: { include: { consent: true } } },
  });
  if (!row) throw invalidGrant("Unknown refresh token");
  const { family } = row;
  if (family.clientId !== client.clientId)
    throw invalidGrant("The refresh token was issued to another client");
  if (row.usedAt) {
    await revokeFamily(family.id, "refresh_reuse", now);
    throw invalidGrant("The refresh token was already used; every token of its family is revoked");
  }
  if (family.revokedAt || family.consent.revokedAt) throw invalidGrant("The grant has been revoked");
  if (row.expiresAt <= now) throw invalidGrant("The refresh token has expired");
  if (!family.scopes.includes("offline_access"))
    throw invalidGrant("The grant does not include offline_access");
  const scopes = narrowScopes(form.get("scope"), family.scopes);

  const claimed = await db.oAuthRefreshToken.updateMany({
    where: { id: row.id, usedAt: null },
    data: { usedAt: now },
  });
  if (claimed.count !== 1) {
    await revokeFamily(family.id, "refresh_reuse", now);
    throw invalidGrant("The refresh token was already used; every token of its family is revoked");
  }
  return issueTokenSet({
    baseUrl,
    now,
    familyId: family.id,
    consentId: family.consentId,
    buyerId: family.buyerId,
    clientId: family.clientId,
    scopes,
    refreshScopes: family.scopes,
  });
};
