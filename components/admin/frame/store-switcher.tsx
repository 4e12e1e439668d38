"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Check, ChevronsUpDown, Plus, Store } from "lucide-react";
import Link from "next/link";

import { Button } from "@/components/ui/button";

export type FrameStore = { slug: string; name: string; role: string };

const itemClass =
  "data-[highlighted]:bg-muted text-foreground flex cursor-default items-center gap-2 rounded-sm px-2 py-2 text-sm no-underline outline-none";

/**
 * Which store the admin shows: the current one on the button, every store the account belongs to in the menu (links,
 * so each opens like any page), and a way to create another.
 */
export function StoreSwitcher({
  stores,
  current,
  onNavigate,
}: {
  stores: FrameStore[];
  current: FrameStore | null;
  onNavigate?: () => void;
}) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="outline" className="h-auto w-full min-w-0 justify-between px-3 py-2 text-left">
          <span className="grid min-w-0">
            <span className="text-muted-foreground text-xs font-normal">Store</span>
            <span className="truncate">{current?.name ?? "Choose a store"}</span>
          </span>
          <span className="sr-only">: switch store</span>
          <ChevronsUpDown aria-hidden />
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          sideOffset={6}
          className="bg-card text-card-foreground z-50 max-h-96 w-64 overflow-y-auto rounded-md border p-1 shadow-lg"
        >
          <DropdownMenu.Label className="text-muted-foreground px-2 py-1.5 text-xs font-semibold">
            Your stores
          </DropdownMenu.Label>
          {stores.map((s) => (
            <DropdownMenu.Item key={s.slug} asChild className={itemClass}>
              <Link href={`/admin/stores/${encodeURIComponent(s.slug)}`} onClick={onNavigate}>
                <Store aria-hidden className="size-4 shrink-0" />
                <span className="min-w-0 flex-1 truncate">{s.name}</span>
                {s.slug === current?.slug ? <Check aria-label="Current store" className="size-4" /> : null}
              </Link>
            </DropdownMenu.Item>
          ))}
          <DropdownMenu.Separator className="bg-border my-1 h-px" />
          <DropdownMenu.Item asChild className={itemClass}>
            <Link href="/admin/stores/new" onClick={onNavigate}>
              <Plus aria-hidden className="size-4" /> Create a store
            </Link>
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
