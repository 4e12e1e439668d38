"use client";

import { Check, Copy } from "lucide-react";
import { useState } from "react";

import { Button } from "@/components/ui/button";

/** The order's full id, selectable, with a button that copies it (what support, the API and the CLI ask for). */
export function OrderCopyId({ id }: { id: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="flex min-w-0 flex-wrap items-center gap-2">
      <code className="font-mono text-xs break-all" data-testid="order-id">
        {id}
      </code>
      <Button
        type="button"
        variant="ghost"
        size="sm"
        aria-label={copied ? "Order ID copied" : "Copy the order ID"}
        onClick={async () => {
          await navigator.clipboard?.writeText(id).catch(() => undefined);
          setCopied(true);
        }}
      >
        {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
        {copied ? "Copied" : "Copy"}
      </Button>
    </span>
  );
}
