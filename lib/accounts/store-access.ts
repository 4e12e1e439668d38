import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";

import type { AccountSummary } from "./accounts";

// Who may act on a store from the admin: its owners (everything) and staff (day-to-day work: catalog, orders), and
// the service's operator (every store). Every admin page and action goes through `storeForAccount`; a store the
// account has no part in is not_found, exactly like a store that does not exist, so nobody learns which slugs exist.

export type StoreRole = "owner" | "staff";

/**
 * The store, if the account may act on it with at least `need`.
 * @throws AppError store_not_found (no membership, or no such store), owner_required (staff on an owner action)
 */
export const storeForAccount = async (
  account: AccountSummary,
  slug: string,
  need: StoreRole,
): Promise<{ store: Store; role: StoreRole | "operator" }> => {
  const store = await getStoreOrThrow(slug);
  if (account.isOperator) return { store, role: "operator" };
  const membership = await (
    await getDb()
  ).storeMembership.findUnique({
    where: { accountId_storeId: { accountId: account.id, storeId: store.id } },
  });
  if (!membership)
    throw new AppError("store_not_found", `No store with slug "${slug}"`, { path: "$.store_slug" });
  if (need === "owner" && membership.role !== "owner") {
    throw new AppError("owner_required", `Only an owner of ${store.name} may do this`);
  }
  return { store, role: membership.role as StoreRole };
};

/** The stores an account may open, with its role in each (an operator: every store). */
export const storesOfAccount = async (account: AccountSummary) => {
  const db = await getDb();
  if (account.isOperator) {
    return (await db.store.findMany({ orderBy: { name: "asc" } })).map((store) => ({
      store,
      role: "operator" as const,
    }));
  }
  const memberships = await db.storeMembership.findMany({ where: { accountId: account.id } });
  const stores = await db.store.findMany({
    where: { id: { in: memberships.map((m) => m.storeId) } },
    orderBy: { name: "asc" },
  });
  return stores.map((store) => ({
    store,
    role: memberships.find((m) => m.storeId === store.id)!.role as StoreRole,
  }));
};

/** Gives an account a role in a store (the store's creator becomes its owner; owners add staff). */
export const grantStoreRole = async (accountId: string, storeId: string, role: StoreRole): Promise<void> => {
  await (
    await getDb()
  ).storeMembership.upsert({
    where: { accountId_storeId: { accountId, storeId } },
    create: { id: newId("storeMembership"), accountId, storeId, role },
    update: { role },
  });
};
