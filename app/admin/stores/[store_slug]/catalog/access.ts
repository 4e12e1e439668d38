import { notFound, redirect } from "next/navigation";

import { storeForAccount } from "@/lib/accounts/store-access";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

/** The signed-in account and its store for a catalog page (staff or owner); sign-in or 404 otherwise. */
export const catalogPageAccess = async (slug: string, here: string) => {
  const account = await getMerchantSession();
  if (!account) redirect(`/admin/sign-in?next=${encodeURIComponent(here)}`);
  try {
    return { account, ...(await storeForAccount(account, slug, "staff")) };
  } catch (thrown) {
    // a store this account has no part in looks exactly like one that does not exist
    if (toAppError(thrown).code === "store_not_found") notFound();
    throw thrown;
  }
};
