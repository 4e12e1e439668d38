import { ArrowLeft } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";

import { cn } from "@/components/ui/cn";

/** The content column of a page with its heading block. */
export function PageShell({
  title,
  description,
  actions,
  back,
  width = "default",
  children,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  /** The page one level up (a list above its item), shown above the title. */
  back?: { href: string; label: string };
  width?: "narrow" | "default";
  children: ReactNode;
}) {
  return (
    <main
      id="main"
      className={cn(
        "mx-auto w-full px-4 py-8 sm:px-6 sm:py-10",
        width === "narrow" ? "max-w-2xl" : "max-w-6xl",
      )}
    >
      {back ? (
        <Link
          href={back.href}
          className="text-muted-foreground hover:text-foreground mb-3 inline-flex items-center gap-1 text-sm no-underline"
        >
          <ArrowLeft aria-hidden className="size-4" />
          {back.label}
        </Link>
      ) : null}
      {title ? (
        <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
          <div className="grid gap-1.5">
            <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{title}</h1>
            {description ? <div className="text-muted-foreground max-w-prose">{description}</div> : null}
          </div>
          {actions}
        </div>
      ) : null}
      {children}
    </main>
  );
}
