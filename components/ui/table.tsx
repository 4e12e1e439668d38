import type { ComponentProps } from "react";

import { cn } from "./cn";

// A data table. On a phone its secondary columns are hidden (`secondary` on their head and cells): the row's first
// cell then carries what matters of them in a <TablePhoneDetails> line, so the table fits without scrolling
// sideways. Should it still be wider than the screen, it scrolls inside its own box instead of widening the page;
// the wrapper is focusable so keyboard users can scroll it too, and positioned, so an absolutely positioned cell
// content (a screen-reader-only label) stays inside it instead of widening the page.

/** Hidden below md: a column whose content the row's first cell repeats on a phone. */
const SECONDARY = "hidden md:table-cell";

export function Table({ className, "aria-label": label, ...props }: ComponentProps<"table">) {
  return (
    <div
      className="relative w-full overflow-x-auto rounded-lg border"
      tabIndex={0}
      role="region"
      aria-label={label}
    >
      <table className={cn("w-full caption-bottom text-sm", className)} aria-label={label} {...props} />
    </div>
  );
}

export function TableHeader({ className, ...props }: ComponentProps<"thead">) {
  return <thead className={cn("bg-muted/60 [&_tr]:border-b", className)} {...props} />;
}

export function TableBody({ className, ...props }: ComponentProps<"tbody">) {
  return <tbody className={cn("[&_tr:last-child]:border-0", className)} {...props} />;
}

export function TableFooter({ className, ...props }: ComponentProps<"tfoot">) {
  return <tfoot className={cn("bg-muted/40 border-t font-medium", className)} {...props} />;
}

export function TableRow({ className, ...props }: ComponentProps<"tr">) {
  return <tr className={cn("border-b", className)} {...props} />;
}

export function TableHead({
  className,
  secondary = false,
  ...props
}: ComponentProps<"th"> & { secondary?: boolean }) {
  return (
    <th
      className={cn(
        "text-muted-foreground h-10 px-3 text-left align-middle text-xs font-semibold",
        secondary && SECONDARY,
        className,
      )}
      {...props}
    />
  );
}

export function TableCell({
  className,
  secondary = false,
  ...props
}: ComponentProps<"td"> & { secondary?: boolean }) {
  return <td className={cn("px-3 py-2.5 align-top", secondary && SECONDARY, className)} {...props} />;
}

/** Inside a row's first cell: the secondary columns' content, shown on a phone only (where those are hidden). */
export function TablePhoneDetails({ className, ...props }: ComponentProps<"div">) {
  return (
    <div
      className={cn("text-muted-foreground mt-1 grid gap-0.5 text-xs break-words md:hidden", className)}
      {...props}
    />
  );
}
