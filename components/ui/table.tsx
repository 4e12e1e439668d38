import type { ComponentProps } from "react";

import { cn } from "./cn";

// A data table. It scrolls sideways inside its own box on narrow screens instead of widening the page; the
// wrapper is focusable so keyboard users can scroll it too, and positioned, so an absolutely positioned cell
// content (a screen-reader-only label) stays inside it instead of widening the page.

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

export function TableHead({ className, ...props }: ComponentProps<"th">) {
  return (
    <th
      className={cn(
        "text-muted-foreground h-10 px-3 text-left align-middle text-xs font-semibold",
        className,
      )}
      {...props}
    />
  );
}

export function TableCell({ className, ...props }: ComponentProps<"td">) {
  return <td className={cn("px-3 py-2.5 align-top", className)} {...props} />;
}
