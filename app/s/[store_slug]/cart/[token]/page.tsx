import type { Metadata } from "next";
import { notFound } from "next/navigation";

import { CartView } from "@/components/cart/cart-view";
import { PageShell } from "@/components/layout/page-shell";
import { getCartPage } from "@/lib/carts/get-cart-page";

// A cart's continue_url (seed §2 Cart: a continue-in-browser link, not a payment page).
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Your cart — Agent Commerce Service", robots: { index: false } };

type Params = { params: Promise<{ store_slug: string; token: string }> };

export default async function CartPageRoute({ params }: Params) {
  const { store_slug, token } = await params;
  const cart = await getCartPage(store_slug, token);
  if (!cart) notFound();
  return (
    <PageShell width="narrow">
      <CartView cart={cart} />
    </PageShell>
  );
}
