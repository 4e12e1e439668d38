"use client";

import { Check, Copy } from "lucide-react";
import { useState } from "react";

import { Button } from "./button";
import { cn } from "./cn";

// The one copy button, for ids, endpoints and secrets shown once. The clipboard can be missing (an insecure
// origin) or refused by the browser: the button then says so and the text stays selectable beside it. Each
// outcome is also announced (aria-live), since the label change alone is not read out on every screen reader.

type Outcome = "idle" | "copied" | "failed";

/** A button copying `value`; `what` names it in the button's label ("the order ID", "the webhook URL"). */
export function CopyButton({
  value,
  what,
  variant = "ghost",
  className,
}: {
  value: string;
  what: string;
  variant?: "ghost" | "outline";
  className?: string;
}) {
  const [outcome, setOutcome] = useState<Outcome>("idle");
  return (
    <>
      <Button
        type="button"
        variant={variant}
        size="sm"
        className={className}
        aria-label={
          outcome === "copied"
            ? `Copied ${what}`
            : outcome === "failed"
              ? `Could not copy: select ${what}`
              : `Copy ${what}`
        }
        onClick={async () => {
          try {
            if (!navigator.clipboard) throw new Error("no clipboard");
            await navigator.clipboard.writeText(value);
            setOutcome("copied");
          } catch {
            setOutcome("failed");
          }
        }}
      >
        {outcome === "copied" ? <Check aria-hidden /> : <Copy aria-hidden />}
        {outcome === "copied" ? "Copied" : outcome === "failed" ? "Select to copy" : "Copy"}
      </Button>
      <span aria-live="polite" className="sr-only">
        {outcome === "copied"
          ? `Copied ${what}.`
          : outcome === "failed"
            ? `The browser refused the clipboard: select ${what} to copy it.`
            : ""}
      </span>
    </>
  );
}

/** Code (an id, an endpoint, a secret) shown selectable, wrapping on a phone, with its copy button. */
export function CopyableCode({
  value,
  what,
  testId,
  className,
}: {
  value: string;
  what: string;
  testId?: string;
  className?: string;
}) {
  return (
    <span className={cn("flex min-w-0 flex-wrap items-center gap-2", className)}>
      <code className="min-w-0 flex-1 basis-40 font-mono text-xs break-all" data-testid={testId}>
        {value}
      </code>
      <CopyButton value={value} what={what} />
    </span>
  );
}

/** A block of example code (a curl call, a client's configuration) that scrolls in its own box, with a copy button. */
export function CodeBlock({ label, what, code }: { label: string; what: string; code: string }) {
  return (
    <figure className="grid min-w-0 gap-1">
      <figcaption className="flex items-center justify-between gap-2 text-xs font-medium">
        {label}
        <CopyButton value={code} what={what} />
      </figcaption>
      <pre className="bg-muted overflow-x-auto rounded-md p-3 text-xs" tabIndex={0} aria-label={label}>
        {code}
      </pre>
    </figure>
  );
}
