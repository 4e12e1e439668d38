"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

import { cn } from "@/components/ui/cn";

// The sections of one store in the admin, in the order a merchant works through them. Each is a page under
// /admin/stores/<slug>/; the page itself checks the account's role, the nav only links.
export const STORE_SECTIONS = [
  { segment: "", label: "Overview" },
  { segment: "orders", label: "Orders" },
  { segment: "catalog", label: "Catalog" },
  { segment: "dashboard", label: "Dashboard" },
  { segment: "settings", label: "Settings" },
  { segment: "payments", label: "Payments" },
  { segment: "webhooks", label: "Webhooks" },
  { segment: "api-keys", label: "API keys" },
  { segment: "team", label: "Team" },
] as const;

export function StoreNav({ slug }: { slug: string }) {
  const pathname = usePathname();
  const root = `/admin/stores/${encodeURIComponent(slug)}`;
  return (
    <nav aria-label="Store sections" className="border-b">
      <ul className="mx-auto flex w-full max-w-6xl gap-1 overflow-x-auto px-4 sm:px-6">
        {STORE_SECTIONS.map(({ segment, label }) => {
          const href = segment ? `${root}/${segment}` : root;
          const current = segment ? pathname === href || pathname.startsWith(`${href}/`) : pathname === root;
          return (
            <li key={label}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={cn(
                  "inline-flex h-10 items-center border-b-2 px-3 text-sm font-medium whitespace-nowrap no-underline",
                  current
                    ? "border-primary text-foreground"
                    : "text-muted-foreground hover:text-foreground border-transparent",
                )}
              >
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
