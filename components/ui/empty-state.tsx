import type { ReactNode } from "react";

import { cn } from "./cn";

/** What a list shows when it has nothing: an icon, one sentence saying why, and what to do next. */
export function EmptyState({
  icon,
  title,
  children,
  action,
  className,
}: {
  icon?: ReactNode;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  className?: string;
}) {
  return (
    <div
      className={cn(
        "flex flex-col items-center gap-3 rounded-xl border border-dashed px-6 py-10 text-center",
        className,
      )}
    >
      {icon ? (
        <div aria-hidden className="bg-muted text-muted-foreground rounded-full p-3 [&_svg]:size-6">
          {icon}
        </div>
      ) : null}
      <p className="font-semibold">{title}</p>
      {children ? <div className="text-muted-foreground max-w-prose text-sm">{children}</div> : null}
      {action}
    </div>
  );
}
