import { TriangleAlert } from "lucide-react";

import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

// What an unexpected failure shows the buyer (app/error.tsx inside the layout, app/global-error.tsx without it): a
// plain sentence and a retry. The error's message is never shown (it may carry internals); its digest lets the
// operator find the server's log line.
export function ErrorNotice({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error ? (error as Error & { digest?: string }).digest : undefined;
  return (
    <>
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
    </>
  );
}
