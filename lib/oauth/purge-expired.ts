import "server-only";

import { getDb } from "@/lib/config/db";

// Housekeeping for the authorization server's short-lived rows. Used codes are kept a day past expiry so a late
// replay still finds (and revokes) its family; refresh tokens go once expired; families and consents stay (they
// are the audit trail the consent centre shows).

const CODE_GRACE_MS = 24 * 3600 * 1000;

export type PurgeCounts = {
  pendingAuthorizations: number;
  authorizationCodes: number;
  refreshTokens: number;
};

export const purgeExpiredOAuthRecords = async (now = new Date()): Promise<PurgeCounts> => {
  const db = await getDb();
  const [pending, codes, refresh] = await db.$transaction([
    db.oAuthPendingAuthorization.deleteMany({ where: { expiresAt: { lte: now } } }),
    db.oAuthAuthorizationCode.deleteMany({
      where: { expiresAt: { lte: new Date(now.getTime() - CODE_GRACE_MS) } },
    }),
    db.oAuthRefreshToken.deleteMany({ where: { expiresAt: { lte: now } } }),
  ]);
  return {
    pendingAuthorizations: pending.count,
    authorizationCodes: codes.count,
    refreshTokens: refresh.count,
  };
};
