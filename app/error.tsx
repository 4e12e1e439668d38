"use client";

import { TriangleAlert } from "lucide-react";

import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

// An unexpected failure while rendering a page: shown inside the site layout, with a retry. The error's message is
// never shown (it may carry internals); its digest lets the operator find the server log line. `retry` fetches the
// page again (a server component that failed on a passing outage recovers); `reset` would only re-render it.
export default function PageError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error ? (error as Error & { digest?: string }).digest : undefined;
  return (
    <PageShell width="narrow">
      <h1 className="sr-only">Something went wrong</h1>
      <EmptyState
        icon={<TriangleAlert />}
        title="Something went wrong on our side"
        action={<Button onClick={retry}>Try again</Button>}
      >
        The page could not be shown. Try again in a moment.
        {digest ? (
          <span className="mt-2 block text-xs">
            Reference: <code>{digest}</code>
          </span>
        ) : null}
      </EmptyState>
    </PageShell>
  );
}
