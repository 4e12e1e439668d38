"use client";

import { Code2, Mail, ShieldCheck, Store } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";

import { SignOutButton } from "@/components/admin/sign-out-button";
import { frameLinkClass, StoreNav } from "@/components/admin/store-nav";

import { StoreSwitcher, type FrameStore } from "./store-switcher";

export type FrameAccount = {
  name: string;
  email: string;
  isOperator: boolean;
  /** Whether this instance has the mail capture page (no SMTP_URL, not production). */
  hasMail: boolean;
};

/**
 * What the merchant frame offers, top to bottom: the store switcher, the store's sections (on a store's pages),
 * then the account (all stores, mail, the operator's page) and the developer area. The same list fills the sidebar and the phone's menu.
 */
export function FrameNav({
  stores,
  currentSlug,
  account,
  onNavigate,
}: {
  stores: FrameStore[];
  currentSlug: string | null;
  account: FrameAccount;
  onNavigate?: () => void;
}) {
  const pathname = usePathname();
  const current = stores.find((s) => s.slug === currentSlug) ?? null;
  const accountLinks = [
    { href: "/admin", label: "Your stores", Icon: Store },
    ...(account.hasMail ? [{ href: "/admin/mail", label: "Mail", Icon: Mail }] : []),
    ...(account.isOperator ? [{ href: "/admin/operator", label: "Operator", Icon: ShieldCheck }] : []),
    { href: "/developers", label: "Developer area", Icon: Code2 },
  ];
  return (
    // minmax(0, 1fr): a long store name or email is truncated, never widening the sidebar
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6">
      <StoreSwitcher stores={stores} current={current} onNavigate={onNavigate} />
      {currentSlug ? <StoreNav slug={currentSlug} onNavigate={onNavigate} /> : null}
      <nav aria-label="Account" className="grid grid-cols-[minmax(0,1fr)] gap-2 border-t pt-4">
        <p className="px-3 text-sm">
          <span className="block font-medium">{account.name}</span>
          <span className="text-muted-foreground block truncate text-xs">{account.email}</span>
        </p>
        <ul className="grid gap-0.5">
          {accountLinks.map(({ href, label, Icon }) => (
            <li key={href}>
              <Link
                href={href}
                onClick={onNavigate}
                aria-current={pathname === href ? "page" : undefined}
                className={frameLinkClass(pathname === href)}
              >
                <Icon aria-hidden />
                {label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="px-3">
          <SignOutButton />
        </div>
      </nav>
    </div>
  );
}
