import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";

import { cn } from "./cn";

// A short status word. Tone carries meaning only together with the word itself (colour is never the only cue).

export const badgeVariants = cva(
  "inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap",
  {
    variants: {
      tone: {
        neutral: "bg-muted text-foreground border-border",
        info: "bg-info-soft text-info-soft-foreground border-transparent",
        success: "bg-success-soft text-success-soft-foreground border-transparent",
        warning: "bg-warning-soft text-warning-soft-foreground border-transparent",
        danger: "bg-danger-soft text-danger-soft-foreground border-transparent",
        outline: "text-foreground border-border",
      },
    },
    defaultVariants: { tone: "neutral" },
  },
);

export function Badge({
  className,
  tone,
  ...props
}: ComponentProps<"span"> & VariantProps<typeof badgeVariants>) {
  return <span className={cn(badgeVariants({ tone }), className)} {...props} />;
}
