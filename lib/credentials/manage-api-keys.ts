import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

export type ApiKeySummary = {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  createdAt: Date;
  revokedAt: Date | null;
};

/** Lists platform keys (never their secrets). */
export const listApiKeys = async (): Promise<ApiKeySummary[]> => {
  const db = await getDb();
  return db.platformApiKey.findMany({
    orderBy: { createdAt: "asc" },
    select: { id: true, name: true, prefix: true, permissions: true, createdAt: true, revokedAt: true },
  });
};

/**
 * Revokes a key; requests with it then get invalid_api_key. Revoking twice keeps the first time.
 * @throws AppError not_found
 */
export const revokeApiKey = async (id: string, now = new Date()): Promise<ApiKeySummary> => {
  const db = await getDb();
  const existing = await db.platformApiKey.findUnique({ where: { id } });
  if (!existing) throw new AppError("not_found", `No API key ${id}`);
  const row = existing.revokedAt
    ? existing
    : await db.platformApiKey.update({ where: { id }, data: { revokedAt: now } });
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
};
