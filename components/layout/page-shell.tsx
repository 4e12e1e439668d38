import type { ReactNode } from "react";

import { cn } from "@/components/ui/cn";

/** The content column of a page with its heading block. */
export function PageShell({
  title,
  description,
  actions,
  width = "default",
  children,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
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
