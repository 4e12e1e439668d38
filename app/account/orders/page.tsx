import { Package } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";

import { OrderCard, PaymentGroup } from "@/components/account/order-card";
import { OrderFilters } from "@/components/account/order-filters";
import { PageShell } from "@/components/layout/page-shell";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { EmptyState } from "@/components/ui/empty-state";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { isOAuthTestMode } from "@/lib/config/env";
import { groupByPayment, listBuyerOrdersPage, listBuyerOrderStores } from "@/lib/orders/list-buyer-orders";

// My orders: what the buyer's agents bought and what the buyer paid on their own wallet page, across stores
// (DECISIONS.md B17: the buyer sees all their orders); the orders of one combined payment shown together.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "My orders — Agent Commerce Service", robots: { index: false } };

type Props = {
  searchParams: Promise<{
    store?: string | string[];
    status?: string | string[];
    before?: string | string[];
  }>;
};

const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");

export default async function MyOrdersPage({ searchParams }: Props) {
  const buyer = await getBuyerSession();
  if (!buyer) {
    return (
      <PageShell
        width="narrow"
        title="My orders"
        description="Sign in to see what your agents bought for you."
      >
        <WalletSignIn sandbox={isOAuthTestMode()} />
      </PageShell>
    );
  }
  const params = await searchParams;
  const store = one(params.store);
  const status = one(params.status);
  const before = one(params.before);
  const [page, stores] = await Promise.all([
    listBuyerOrdersPage(buyer.id, { store, status }, { before: before || undefined }),
    listBuyerOrderStores(buyer.id),
  ]);
  const { orders } = page;
  const filtered = Boolean(store || status);
  const later = Boolean(before) && !page.invalidCursor;
  /** This list's link with the filters kept and `before` set (or dropped: the newest page). */
  const pageLink = (cursor: string | null) => {
    const query = new URLSearchParams({
      ...(store ? { store } : {}),
      ...(status ? { status } : {}),
      ...(cursor ? { before: cursor } : {}),
    }).toString();
    return query ? `/account/orders?${query}` : "/account/orders";
  };
  return (
    <PageShell
      title="My orders"
      description="Everything your agents bought for you and everything you paid yourself, in every store."
    >
      {stores.length > 0 ? <OrderFilters stores={stores} store={store} status={status} /> : null}
      {page.invalidCursor ? (
        <p className="text-muted-foreground mb-4 text-sm" role="status">
          That page link is not valid any more: here are your newest orders.
        </p>
      ) : null}
      {orders.length === 0 ? (
        <EmptyState
          icon={<Package />}
          title={filtered ? "No orders match these filters" : "No orders yet"}
          action={
            filtered ? (
              <Link href="/account/orders">Show all orders</Link>
            ) : (
              <Link href="/account/agents">See your linked agents</Link>
            )
          }
        >
          {filtered
            ? "Try another store or status."
            : "When an agent you linked buys something for you, the order shows up here."}
        </EmptyState>
      ) : (
        <div className="grid gap-5">
          <p className="text-muted-foreground text-sm" role="status">
            {orders.length === 1 ? "1 order" : `${orders.length} orders`}
            {later ? " (older orders)" : page.older ? " (the newest)" : ""}
          </p>
          {groupByPayment(orders).map((entry) =>
            entry.kind === "order" ? (
              <OrderCard key={entry.order.id} order={entry.order} />
            ) : (
              <PaymentGroup key={entry.id} orders={entry.orders} />
            ),
          )}
          {page.older || later ? (
            <nav aria-label="Pages of orders" className="flex flex-wrap justify-between gap-3 text-sm">
              {later ? <Link href={pageLink(null)}>Newest orders</Link> : <span />}
              {page.older ? <Link href={pageLink(page.older)}>Older orders</Link> : null}
            </nav>
          ) : null}
        </div>
      )}
    </PageShell>
  );
}
