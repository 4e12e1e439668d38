import "server-only";

import type { ReactNode } from "react";

import { storesOfAccount } from "@/lib/accounts/store-access";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { mailPageAvailable } from "@/lib/mail/captured-mail";

import { AdminFrame } from "./admin-frame";

// The switcher lists at most this many stores (the operator belongs to every store); "Your stores" lists the rest.
const SWITCHER_STORES = 50;

/**
 * The merchant frame around a page a signed-in merchant reaches (the store list, a new store, a store's pages,
 * mail, the operator's page, invitations, the developer area). Without a merchant session the page alone is
 * rendered: each page does its own access check and sends a visitor without one to sign in.
 */
export async function MerchantFrame({
  currentSlug = null,
  children,
}: {
  /** The store whose page this is; none on the pages above every store. */
  currentSlug?: string | null;
  children: ReactNode;
}) {
  const account = await getMerchantSession();
  if (!account) return children;
  const stores = (await storesOfAccount(account)).map(({ store, role }) => ({
    slug: store.slug,
    name: store.name,
    role,
  }));
  const shown = stores.slice(0, SWITCHER_STORES);
  const current = stores.find((s) => s.slug === currentSlug);
  if (current && !shown.includes(current)) shown.unshift(current);
  return (
    <AdminFrame
      stores={shown}
      // a slug the account cannot open (the page answers not found) gets no store sections
      currentSlug={current ? current.slug : null}
      account={{
        name: account.name,
        email: account.email,
        isOperator: account.isOperator,
        hasMail: mailPageAvailable(),
      }}
    >
      {children}
    </AdminFrame>
  );
}
