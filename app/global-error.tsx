"use client";

import { ErrorNotice } from "@/components/layout/error-notice";

import "./globals.css";

// The last resort: the root layout itself failed (it reads the buyer's session from the database), so this
// replaces it with its own document — no header, the system theme — and the same notice and retry as error.tsx.
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col">
        <title>Something went wrong · Agent Commerce Service</title>
        <main id="main" className="mx-auto w-full max-w-xl flex-1 px-4 py-16">
          <ErrorNotice error={error} retry={retry} />
        </main>
      </body>
    </html>
  );
}
