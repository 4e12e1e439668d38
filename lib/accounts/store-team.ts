import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

import type { AccountSummary } from "./accounts";
import { storeForAccount, type StoreRole } from "./store-access";

// A store's team: its owners and staff. Every member sees the team; only an owner changes it. A person joins by
// accepting an owner's invitation with the verified account of the invited address (store-invitations.ts; we never
// create an account for someone else), and a store always keeps at least one owner, so nobody can lock everyone
// out of it.

export type TeamMember = { accountId: string; name: string; email: string; role: StoreRole; since: Date };

/** The members of a store, owners first. @throws AppError store_not_found */
export const listStoreTeam = async (account: AccountSummary, slug: string): Promise<TeamMember[]> => {
  const { store } = await storeForAccount(account, slug, "staff");
  const rows = await (
    await getDb()
  ).storeMembership.findMany({
    where: { storeId: store.id },
    include: { account: { select: { name: true, email: true } } },
    orderBy: [{ role: "asc" }, { createdAt: "asc" }],
  });
  return rows.map((r) => ({
    accountId: r.accountId,
    name: r.account.name,
    email: r.account.email,
    role: r.role as StoreRole,
    since: r.createdAt,
  }));
};

/** Removes a member. @throws AppError store_not_found, owner_required, not_found, last_owner */
export const removeStoreMember = async (
  account: AccountSummary,
  slug: string,
  memberAccountId: string,
): Promise<void> => {
  const { store } = await storeForAccount(account, slug, "owner");
  await (
    await getDb()
  ).$transaction(async (tx) => {
    const membership = await tx.storeMembership.findUnique({
      where: { accountId_storeId: { accountId: memberAccountId, storeId: store.id } },
    });
    if (!membership) {
      throw new AppError("not_found", "That person is not on this store's team", { path: "$.account_id" });
    }
    await assertAnotherOwner(tx, store.id, memberAccountId);
    await tx.storeMembership.delete({ where: { id: membership.id } });
  });
};

/**
 * Refuses a change that takes away the last owner (demoting or removing `accountId`). The store row is locked
 * first, so two owners demoting each other at once cannot both pass the count.
 */
const assertAnotherOwner = async (
  tx: Prisma.TransactionClient,
  storeId: string,
  accountId: string,
): Promise<void> => {
  await tx.$queryRaw`SELECT id FROM stores WHERE id = ${storeId} FOR UPDATE`;
  const owners = await tx.storeMembership.findMany({
    where: { storeId, role: "owner" },
    select: { accountId: true },
  });
  if (owners.some((o) => o.accountId === accountId) && owners.length === 1) {
    throw new AppError("last_owner", "The store would have no owner: make someone else an owner first");
  }
};
