"use client";

import { Menu } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from "@/components/ui/sheet";

import { isMerchantPath, linksFor } from "./nav";

/** The header's menu on a phone; `framed`: the page has the merchant frame, whose own menu replaces this one. */
export function MobileNav({ framed }: { framed: boolean }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  if (framed) return null;
  return (
    <Sheet open={open} onOpenChange={setOpen}>
      <SheetTrigger asChild>
        <Button variant="ghost" size="icon" className="md:hidden" aria-label="Open menu">
          <Menu aria-hidden />
        </Button>
      </SheetTrigger>
      <SheetContent>
        <SheetTitle className="text-lg font-semibold">Menu</SheetTitle>
        <SheetDescription className="sr-only">
          {isMerchantPath(pathname) ? "The merchant and developer pages" : "The buyer's pages"}
        </SheetDescription>
        <nav aria-label="Main" className="grid gap-1">
          {linksFor(pathname).map((l) => (
            <Link
              key={l.href}
              href={l.href}
              onClick={() => setOpen(false)}
              className="text-foreground hover:bg-muted rounded-md px-3 py-2 no-underline"
            >
              {l.label}
            </Link>
          ))}
        </nav>
      </SheetContent>
    </Sheet>
  );
}
