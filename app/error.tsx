"use client";

import { ErrorNotice } from "@/components/layout/error-notice";
import { PageShell } from "@/components/layout/page-shell";

// An unexpected failure while rendering a page: shown inside the site layout. `retry` fetches the page again (a
// server component that failed on a passing outage recovers); `reset` would only re-render it.
export default function PageError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <PageShell width="narrow">
      <ErrorNotice error={error} retry={retry} />
    </PageShell>
  );
}
