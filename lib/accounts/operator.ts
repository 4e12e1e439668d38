import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { revokeApiKey, type ApiKeySummary } from "@/lib/credentials/manage-api-keys";

import type { AccountSummary } from "./accounts";

// What the service's operator sees and does beyond the stores: every developer's platform keys. Anyone else gets
// not_found, the answer for a page that does not exist, so the operator's pages are not advertised.

/** @throws AppError not_found unless `account` is the operator */
export const requireOperator = (account: AccountSummary): void => {
  if (!account.isOperator) throw new AppError("not_found", "No such page");
};

export type OperatorKeyView = ApiKeySummary & { owner: { name: string; email: string } | null };

/** Every platform key with the developer account that made it (null: made by the operator's CLI). */
export const operatorListKeys = async (account: AccountSummary): Promise<OperatorKeyView[]> => {
  requireOperator(account);
  const db = await getDb();
  const keys = await db.platformApiKey.findMany({
    orderBy: { createdAt: "asc" },
    omit: { secretHash: true },
  });
  const ownerIds = [...new Set(keys.flatMap((k) => (k.accountId ? [k.accountId] : [])))];
  const owners = new Map(
    (
      await db.merchantAccount.findMany({
        where: { id: { in: ownerIds } },
        select: { id: true, name: true, email: true },
      })
    ).map((a) => [a.id, { name: a.name, email: a.email }]),
  );
  return keys.map(({ accountId, ...k }) => ({
    ...k,
    owner: accountId ? (owners.get(accountId) ?? null) : null,
  }));
};

/** The operator revokes any developer's key. @throws AppError not_found */
export const operatorRevokeKey = async (account: AccountSummary, id: string, now = new Date()) => {
  requireOperator(account);
  return revokeApiKey(id, now);
};
