import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

export type ApiKeySummary = {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** Whose keys: every key (the operator's CLI) or one developer account's. */
export type KeyOwner = { accountId?: string };

/** Lists platform keys (never their secrets): all of them, or one account's. */
export const listApiKeys = async ({ accountId }: KeyOwner = {}): Promise<ApiKeySummary[]> => {
  const db = await getDb();
  return db.platformApiKey.findMany({
    where: accountId === undefined ? {} : { accountId },
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      name: true,
      prefix: true,
      permissions: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
    },
  });
};

/**
 * Revokes a key; requests with it then get invalid_api_key. Revoking twice keeps the first time. A developer
 * account revokes only its own keys (another's is not_found, as if it did not exist).
 * @throws AppError not_found
 */
export const revokeApiKey = async (
  id: string,
  now = new Date(),
  { accountId }: KeyOwner = {},
): Promise<ApiKeySummary> => {
  const db = await getDb();
  const existing = await db.platformApiKey.findUnique({ where: { id } });
  if (!existing || (accountId !== undefined && existing.accountId !== accountId)) {
    throw new AppError("not_found", `No API key ${id}`);
  }
  const row = existing.revokedAt
    ? existing
    : await db.platformApiKey.update({ where: { id }, data: { revokedAt: now } });
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
};
