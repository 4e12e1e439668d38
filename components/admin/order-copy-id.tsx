"use client";

import { Check, Copy } from "lucide-react";
import { useState } from "react";

import { Button } from "@/components/ui/button";

/** The order's full id, selectable, with a button that copies it (what support, the API and the CLI ask for). */
export function OrderCopyId({ id }: { id: string }) {
  // "failed" (no clipboard, or the browser refused): the id stays selectable beside the button
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  return (
    <span className="flex min-w-0 flex-wrap items-center gap-2">
      <code className="font-mono text-xs break-all" data-testid="order-id">
        {id}
      </code>
      <Button
        type="button"
        variant="ghost"
        size="sm"
        aria-label={
          copied === "yes"
            ? "Order ID copied"
            : copied === "failed"
              ? "Could not copy: select the order ID"
              : "Copy the order ID"
        }
        onClick={async () => {
          try {
            if (!navigator.clipboard) throw new Error("no clipboard");
            await navigator.clipboard.writeText(id);
            setCopied("yes");
          } catch {
            setCopied("failed");
          }
        }}
      >
        {copied === "yes" ? <Check aria-hidden /> : <Copy aria-hidden />}
        {copied === "yes" ? "Copied" : copied === "failed" ? "Select to copy" : "Copy"}
      </Button>
    </span>
  );
}
