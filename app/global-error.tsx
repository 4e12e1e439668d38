"use client";

import { TriangleAlert } from "lucide-react";

import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

import "./globals.css";

// The last resort: the root layout itself failed (it reads the buyer's session from the database), so this
// replaces it with its own document — no header, the system theme — and the same message and retry as error.tsx.
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error ? (error as Error & { digest?: string }).digest : undefined;
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col">
        <title>Something went wrong · Agent Commerce Service</title>
        <main id="main" className="mx-auto w-full max-w-xl flex-1 px-4 py-16">
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
        </main>
      </body>
    </html>
  );
}
