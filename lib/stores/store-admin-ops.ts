import "server-only";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount, type StoreRole } from "@/lib/accounts/store-access";
import { createProduct } from "@/lib/catalog/admin/create-product";
import { deleteProduct } from "@/lib/catalog/admin/delete-product";
import { listProducts } from "@/lib/catalog/admin/list-products";
import { updateProduct } from "@/lib/catalog/admin/update-product";
import { getCatalogImport } from "@/lib/catalog/import/get-catalog-import";
import { startCatalogImport } from "@/lib/catalog/import/start-catalog-import";
import type { Store } from "@/lib/generated/prisma/client";

import { updateAgentRequestPolicy } from "./agent-request-policy";
import { forgetSavedAddresses } from "./forget-saved-addresses";
import { createLocation, deleteLocation, listStoreLocations } from "./locations-admin";
import { createShippingRate, deleteShippingRate, listShippingRates } from "./shipping-rates";
import { updateStoreSettings } from "./update-store-settings";

// The store admin's operations with the role each needs, in one table: the admin's server actions and pages (and
// a merchant API later) run them through `runStoreAdminOp`, so the access rule of an operation is written once and
// a test can walk every operation (staff refused on owner ones, any account refused on another store's).
// Owners change how the store sells (settings, shipping, locations); staff run the catalog day to day.

const op = <I, O>(need: StoreRole, run: (store: Store, input: I) => Promise<O>) => ({ need, run });

export const STORE_ADMIN_OPS = {
  updateSettings: op("owner", updateStoreSettings),
  updateAgentRequests: op("owner", updateAgentRequestPolicy),
  forgetSavedAddresses: op("owner", forgetSavedAddresses),
  listShippingRates: op("staff", (store) => listShippingRates(store)),
  createShippingRate: op("owner", createShippingRate),
  deleteShippingRate: op("owner", deleteShippingRate),
  listLocations: op("staff", (store) => listStoreLocations(store)),
  createLocation: op("owner", createLocation),
  deleteLocation: op("owner", deleteLocation),
  listProducts: op("staff", listProducts),
  createProduct: op("staff", createProduct),
  updateProduct: op("staff", updateProduct),
  deleteProduct: op("staff", deleteProduct),
  startCatalogImport: op("staff", startCatalogImport),
  getCatalogImport: op("staff", getCatalogImport),
} as const;

export type StoreAdminOpName = keyof typeof STORE_ADMIN_OPS;
type OpOf<N extends StoreAdminOpName> = (typeof STORE_ADMIN_OPS)[N];

/**
 * Runs a store admin operation for a signed-in account, after its access check.
 * @throws AppError store_not_found (no part in the store), owner_required, and whatever the operation throws
 */
export const runStoreAdminOp = async <N extends StoreAdminOpName>(
  account: AccountSummary,
  slug: string,
  name: N,
  input: unknown,
): Promise<Awaited<ReturnType<OpOf<N>["run"]>>> => {
  const entry = STORE_ADMIN_OPS[name];
  const { store } = await storeForAccount(account, slug, entry.need);
  return (await (entry.run as (store: Store, input: unknown) => Promise<unknown>)(store, input)) as Awaited<
    ReturnType<OpOf<N>["run"]>
  >;
};
