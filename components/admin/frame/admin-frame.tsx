import type { ReactNode } from "react";

import { FrameMenu } from "./frame-menu";
import { FrameNav, type FrameAccount } from "./frame-nav";
import type { FrameStore } from "./store-switcher";

/**
 * The merchant's frame (see merchant-frame.tsx for the pages it wraps): a sidebar (store switcher, the store's
 * sections when a store is chosen, the account and the developer area) beside the page from md up; on a phone a
 * bar with the store's name and a menu holding the same links. The buyer's places (My orders, Linked agents,
 * Spend caps) are not in it.
 */
export function AdminFrame({
  stores,
  currentSlug,
  account,
  children,
}: {
  stores: FrameStore[];
  currentSlug: string | null;
  account: FrameAccount;
  children: ReactNode;
}) {
  return (
    <div className="flex w-full">
      <aside aria-label="Merchant admin" className="hidden w-64 shrink-0 border-r md:block">
        <div className="sticky top-14 max-h-[calc(100dvh-3.5rem)] overflow-y-auto p-4">
          <FrameNav stores={stores} currentSlug={currentSlug} account={account} />
        </div>
      </aside>
      <div className="min-w-0 flex-1">
        <FrameMenu stores={stores} currentSlug={currentSlug} account={account} />
        {children}
      </div>
    </div>
  );
}
