"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { LogOut, Package, Plug, Store, UserRound, Wallet } from "lucide-react";
import { signOut } from "next-auth/react";
import Link from "next/link";
import { useRouter } from "next/navigation";

import { Button } from "@/components/ui/button";

// The account menu: who is signed in (the wallet address, shortened; the full one in the menu), the buyer's pages,
// and sign out. Signed out: a link to sign in (the orders page offers the wallet sign-in). A merchant signed in to
// the admin sees a link back to it instead.

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

const itemClass =
  "data-[highlighted]:bg-muted flex cursor-default items-center gap-2 rounded-sm px-2 py-2 text-sm no-underline text-foreground outline-none";

export function AccountMenu({
  address,
  merchantName = null,
}: {
  address: string | null;
  merchantName?: string | null;
}) {
  const router = useRouter();
  if (!address && merchantName) {
    return (
      <Button asChild variant="outline" size="sm">
        <Link href="/admin" aria-label={`Merchant admin, signed in as ${merchantName}`}>
          <Store aria-hidden />
          {/* on a phone the icon alone (the link is named for the account): the header must fit 375 px */}
          <span className="hidden max-w-32 truncate sm:inline">{merchantName}</span>
        </Link>
      </Button>
    );
  }
  if (!address) {
    return (
      <Button asChild variant="outline" size="sm">
        <Link href="/account/orders">
          <Wallet aria-hidden />
          Sign in
        </Link>
      </Button>
    );
  }
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button
          variant="outline"
          size="sm"
          aria-label={`Account ${short(address)}`}
          data-testid="account-menu"
        >
          <UserRound aria-hidden />
          <span className="font-mono text-xs">{short(address)}</span>
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          className="bg-card text-card-foreground z-50 w-64 rounded-md border p-1 shadow-lg"
        >
          <DropdownMenu.Label className="px-2 py-1.5">
            <span className="text-muted-foreground block text-xs font-semibold">
              Signed in with Sui wallet
            </span>
            <span className="block font-mono text-xs break-all">{address}</span>
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="bg-border my-1 h-px" />
          <DropdownMenu.Item asChild className={itemClass}>
            <Link href="/account/orders">
              <Package aria-hidden className="size-4" /> My orders
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <Link href="/account/agents">
              <Plug aria-hidden className="size-4" /> Linked agents
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="bg-border my-1 h-px" />
          <DropdownMenu.Item
            className={itemClass}
            onSelect={async () => {
              await signOut({ redirect: false });
              router.push("/");
              router.refresh();
            }}
          >
            <LogOut aria-hidden className="size-4" /> Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
