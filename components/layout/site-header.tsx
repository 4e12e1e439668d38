"use client";

import { ShoppingBag } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";

import { cn } from "@/components/ui/cn";

import { AccountMenu } from "./account-menu";
import { HeaderNav } from "./header-nav";
import { MobileNav } from "./mobile-nav";
import { isFramePath, isMerchantPath } from "./nav";
import type { ThemeChoice } from "./theme";
import { ThemeMenu } from "./theme-menu";

export function SiteHeader({
  address,
  merchantName,
  theme,
}: {
  address: string | null;
  /** The signed-in merchant account's name (the admin), when no buyer is signed in. */
  merchantName: string | null;
  theme: ThemeChoice;
}) {
  const pathname = usePathname();
  const merchant = isMerchantPath(pathname);
  // the merchant frame wraps these pages only for a signed-in merchant (components/admin/frame/merchant-frame.tsx)
  const framed = merchantName !== null && isFramePath(pathname);
  return (
    <header className="bg-background/95 sticky top-0 z-40 border-b backdrop-blur">
      {/* the merchant frame is full width: the header spans it too, aligned with its sidebar */}
      <div
        className={cn(
          "mx-auto flex h-14 items-center gap-3 px-4 sm:px-6",
          framed ? "max-w-none md:px-4" : "max-w-6xl",
        )}
      >
        <Link href="/" className="text-foreground flex items-center gap-2 font-semibold no-underline">
          <ShoppingBag aria-hidden className="text-primary size-5" />
          <span className="hidden sm:inline">Agent Commerce Service</span>
          <span className="sm:hidden">ACS</span>
        </Link>
        {merchant ? (
          <span className="bg-muted text-muted-foreground rounded-full px-2 py-0.5 text-xs font-medium">
            Merchant
          </span>
        ) : null}
        <HeaderNav />
        <div className="ml-auto flex items-center gap-1">
          <ThemeMenu initial={theme} />
          <AccountMenu address={address} merchantName={merchantName} />
          <MobileNav framed={framed} />
        </div>
      </div>
    </header>
  );
}
