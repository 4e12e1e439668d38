import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError, toAppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

import { accountByEmail, type AccountSummary } from "./accounts";
import { storeForAccount, type StoreRole } from "./store-access";

// A store's team: its owners and staff. Every member sees the team; only an owner changes it. A person joins
// with the account they signed up with (we never create an account for someone else), and a store always keeps
// at least one owner, so nobody can lock everyone out of it.

export type TeamMember = { accountId: string; name: string; email: string; role: StoreRole; since: Date };

export const AddMemberSchema = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, "An email address has at most 254 characters")
    .pipe(z.email({ error: "Enter an email address such as you@example.com" })),
  role: z.enum(["owner", "staff"], { error: "Choose owner or staff" }),
});

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

/**
 * Adds an existing account to the store (or changes its role).
 * @throws AppError store_not_found, owner_required, invalid_request (bad email or role, no such account), last_owner
 */
export const addStoreMember = async (
  account: AccountSummary,
  slug: string,
  raw: unknown,
): Promise<TeamMember> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const parsed = AddMemberSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${String(issue.path[0] ?? "")}` });
  }
  let member: AccountSummary;
  try {
    member = await accountByEmail(parsed.data.email);
  } catch (thrown) {
    if (toAppError(thrown).code !== "not_found") throw thrown;
    throw new AppError(
      "invalid_request",
      `No account uses ${parsed.data.email}: ask them to sign up at /admin/sign-up first, then add them`,
      { path: "$.email" },
    );
  }
  const role = parsed.data.role;
  await (
    await getDb()
  ).$transaction(async (tx) => {
    if (role === "staff") await assertAnotherOwner(tx, store.id, member.id);
    await tx.storeMembership.upsert({
      where: { accountId_storeId: { accountId: member.id, storeId: store.id } },
      create: { id: newId("storeMembership"), accountId: member.id, storeId: store.id, role },
      update: { role },
    });
  });
  return (await listStoreTeam(account, slug)).find((m) => m.accountId === member.id)!;
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
