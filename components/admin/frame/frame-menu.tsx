"use client";

import { Menu } from "lucide-react";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from "@/components/ui/sheet";

import { FrameNav, type FrameAccount } from "./frame-nav";
import type { FrameStore } from "./store-switcher";

/** The merchant frame on a phone: the sidebar folds into a sheet opened from a bar under the header. */
export function FrameMenu({
  stores,
  currentSlug,
  account,
}: {
  stores: FrameStore[];
  currentSlug: string | null;
  account: FrameAccount;
}) {
  const [open, setOpen] = useState(false);
  const current = stores.find((s) => s.slug === currentSlug);
  return (
    <div className="flex items-center justify-between gap-2 border-b px-4 py-2 md:hidden">
      <span className="min-w-0 truncate text-sm font-semibold">{current?.name ?? "Merchant admin"}</span>
      <Sheet open={open} onOpenChange={setOpen}>
        <SheetTrigger asChild>
          <Button variant="outline" size="sm">
            <Menu aria-hidden />
            Menu
          </Button>
        </SheetTrigger>
        <SheetContent className="overflow-y-auto">
          <SheetTitle className="text-lg font-semibold">
            {current ? "Store menu" : "Merchant menu"}
          </SheetTitle>
          <SheetDescription className="sr-only">
            {current
              ? "Switch store, open a section of the store, your account or the developer area."
              : "Choose a store, your account or the developer area."}
          </SheetDescription>
          <FrameNav
            stores={stores}
            currentSlug={currentSlug}
            account={account}
            onNavigate={() => setOpen(false)}
          />
        </SheetContent>
      </Sheet>
    </div>
  );
}
