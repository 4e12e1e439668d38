import type { ComponentProps } from "react";

import { cn } from "./cn";

/** A grey placeholder while data loads; hidden from screen readers (the loading region says "Loading"). */
export function Skeleton({ className, ...props }: ComponentProps<"div">) {
  return <div aria-hidden className={cn("bg-muted animate-pulse rounded-md", className)} {...props} />;
}
