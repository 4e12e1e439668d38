import type { ComponentProps, ReactNode } from "react";

import { cn } from "./cn";

// Label/value pairs as a description list: stacked on phones, two columns from sm up.

export function DataList({ className, ...props }: ComponentProps<"dl">) {
  return (
    <dl className={cn("grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]", className)} {...props} />
  );
}

export function DataItem({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-0.5 sm:contents">
      <dt className="text-muted-foreground font-medium">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}
