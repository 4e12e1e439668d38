"use client";

import {
  CreditCard,
  Gauge,
  Home,
  KeyRound,
  Package,
  Settings,
  ShoppingCart,
  Users,
  Webhook,
} from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";

import { cn } from "@/components/ui/cn";

// The sections of one store in the admin, in the order a merchant works through them. Each is a page under
// /admin/stores/<slug>/; the page itself checks the account's role, the nav only links. Shown in the merchant
// frame's sidebar (components/admin/frame), and in its menu sheet on a phone.
export const STORE_SECTIONS = [
  { segment: "", label: "Overview", Icon: Home },
  { segment: "orders", label: "Orders", Icon: ShoppingCart },
  { segment: "catalog", label: "Catalog", Icon: Package },
  { segment: "dashboard", label: "Dashboard", Icon: Gauge },
  { segment: "settings", label: "Settings", Icon: Settings },
  { segment: "payments", label: "Payments", Icon: CreditCard },
  { segment: "webhooks", label: "Webhooks", Icon: Webhook },
  { segment: "api-keys", label: "API keys", Icon: KeyRound },
  { segment: "team", label: "Team", Icon: Users },
] as const;

export const frameLinkClass = (current: boolean) =>
  cn(
    "flex items-center gap-2.5 rounded-md px-3 py-2 text-sm font-medium no-underline [&_svg]:size-4 [&_svg]:shrink-0",
    current ? "bg-muted text-foreground" : "text-muted-foreground hover:bg-muted hover:text-foreground",
  );

export function StoreNav({ slug, onNavigate }: { slug: string; onNavigate?: () => void }) {
  const pathname = usePathname();
  const root = `/admin/stores/${encodeURIComponent(slug)}`;
  return (
    <nav aria-label="Store sections">
      <ul className="grid gap-0.5">
        {STORE_SECTIONS.map(({ segment, label, Icon }) => {
          const href = segment ? `${root}/${segment}` : root;
          const current = segment ? pathname === href || pathname.startsWith(`${href}/`) : pathname === root;
          return (
            <li key={label}>
              <Link
                href={href}
                onClick={onNavigate}
                aria-current={current ? "page" : undefined}
                className={frameLinkClass(current)}
              >
                <Icon aria-hidden />
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
