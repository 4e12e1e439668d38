"use client";

import { TriangleAlert } from "lucide-react";

import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

// An unexpected failure while rendering a page: shown inside the site layout, with a retry. The error's message is
// never shown (it may carry internals); its digest lets the operator find the server log line.
export default function PageError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <PageShell width="narrow">
      <h1 className="sr-only">Something went wrong</h1>
      <EmptyState
        icon={<TriangleAlert />}
        title="Something went wrong on our side"
        action={<Button onClick={reset}>Try again</Button>}
      >
        The page could not be shown. Try again in a moment.
        {error.digest ? (
          <span className="mt-2 block text-xs">
            Reference: <code>{error.digest}</code>
          </span>
        ) : null}
      </EmptyState>
    </PageShell>
  );
}
