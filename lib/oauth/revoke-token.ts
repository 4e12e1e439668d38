import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

import { authenticateClient } from "./client-auth";
import { revokeFamily } from "./grants/token-set";
import { hashToken, verifyAccessTokenJwt } from "./tokens";

// Token revocation (RFC 7009). Revoking a refresh token or a buyer access token revokes its whole family, so the
// refresh token stops refreshing and every access token of the family fails at once (UCP identity linking:
// revoking a refresh token kills its access tokens). Unknown tokens, or tokens of another client, answer 200
// unchanged (§2.2). client_credentials tokens are not tracked: they lapse within their 10-minute life.

/** @throws AppError invalid_request, invalid_client */
export const revokeToken = async (
  form: URLSearchParams,
  { authorization, baseUrl, now = new Date() }: { authorization: string | null; baseUrl: string; now?: Date },
): Promise<void> => {
  const token = form.get("token");
  if (!token) throw new AppError("invalid_request", "token is required");
  const client = await authenticateClient(form, authorization);
  const db = await getDb();
  const hint = form.get("token_type_hint");
  const tryRefresh = async (): Promise<boolean> => {
    const row = await db.oAuthRefreshToken.findUnique({
      where: { tokenHash: hashToken(token) },
      include: { family: true },
    });
    if (!row) return false;
    if (row.family.clientId === client.clientId) await revokeFamily(row.familyId, "revocation_endpoint", now);
    return true;
  };
  const tryAccess = async (): Promise<boolean> => {
    const claims = await verifyAccessTokenJwt(token, { baseUrl, now });
    if (!claims) return false;
    if (claims.sid && claims.client_id === client.clientId)
      await revokeFamily(claims.sid, "revocation_endpoint", now);
    return true;
  };
  if (hint === "access_token") {
    if (!(await tryAccess())) await tryRefresh();
  } else if (!(await tryRefresh())) await tryAccess();
};
