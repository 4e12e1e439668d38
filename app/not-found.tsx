import { SearchX } from "lucide-react";
import Link from "next/link";

import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

// Pages that call notFound() (an unknown or expired cart link, …) render here, inside the site layout.
export default function NotFound() {
  return (
    <PageShell width="narrow">
      <h1 className="sr-only">Page not found</h1>
      <EmptyState
        icon={<SearchX />}
        title="This page does not exist, or the link has expired"
        action={
          <Button asChild variant="outline">
            <Link href="/">Go to the home page</Link>
          </Button>
        }
      >
        Links to carts and payments work only while they are active. Ask your agent for a fresh link.
      </EmptyState>
    </PageShell>
  );
}
