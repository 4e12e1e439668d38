"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

import { linksFor } from "./nav";

/** The header's links on a wide screen: the buyer's places, or the merchant's under /admin and /developers. */
export function HeaderNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="ml-4 hidden items-center gap-1 md:flex">
      {linksFor(pathname).map((l) => (
        <Link
          key={l.href}
          href={l.href}
          aria-current={pathname === l.href ? "page" : undefined}
          className="text-muted-foreground hover:text-foreground hover:bg-muted rounded-md px-3 py-1.5 text-sm no-underline"
        >
          {l.label}
        </Link>
      ))}
    </nav>
  );
}
