import type { ReactNode } from "react";

import { AdminFrame } from "@/components/admin/frame/admin-frame";
import { storesOfAccount } from "@/lib/accounts/store-access";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";

type Props = { children: ReactNode; params: Promise<{ store_slug: string }> };

// The switcher lists at most this many stores (the operator belongs to every store); "All stores" lists the rest.
const SWITCHER_STORES = 50;

// Every store page sits in the merchant frame; each page does its own access check (owner or staff) and sends a
// visitor without a session to sign in, so without one the page alone is rendered.
export default async function StoreLayout({ children, params }: Props) {
  const { store_slug } = await params;
  const account = await getMerchantSession();
  if (!account) return children;
  const stores = (await storesOfAccount(account)).map(({ store, role }) => ({
    slug: store.slug,
    name: store.name,
    role,
  }));
  const shown = stores.slice(0, SWITCHER_STORES);
  const current = stores.find((s) => s.slug === store_slug);
  if (current && !shown.includes(current)) shown.unshift(current);
  return (
    <AdminFrame
      stores={shown}
      currentSlug={store_slug}
      account={{ name: account.name, email: account.email, isOperator: account.isOperator }}
    >
      {children}
    </AdminFrame>
  );
}
