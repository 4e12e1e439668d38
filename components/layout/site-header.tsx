import { ShoppingBag } from "lucide-react";
import Link from "next/link";

import { AccountMenu } from "./account-menu";
import { MobileNav } from "./mobile-nav";
import { NAV_LINKS } from "./nav";
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
  return (
    <header className="bg-background/95 sticky top-0 z-40 border-b backdrop-blur">
      <div className="mx-auto flex h-14 max-w-6xl items-center gap-3 px-4 sm:px-6">
        <Link href="/" className="text-foreground flex items-center gap-2 font-semibold no-underline">
          <ShoppingBag aria-hidden className="text-primary size-5" />
          <span className="hidden sm:inline">Agent Commerce Service</span>
          <span className="sm:hidden">ACS</span>
        </Link>
        <nav aria-label="Main" className="ml-4 hidden items-center gap-1 md:flex">
          {NAV_LINKS.map((l) => (
            <Link
              key={l.href}
              href={l.href}
              className="text-muted-foreground hover:text-foreground hover:bg-muted rounded-md px-3 py-1.5 text-sm no-underline"
            >
              {l.label}
            </Link>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-1">
          <ThemeMenu initial={theme} />
          <AccountMenu address={address} merchantName={merchantName} />
          <MobileNav />
        </div>
      </div>
    </header>
  );
}
