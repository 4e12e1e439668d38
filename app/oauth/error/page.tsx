import { ShieldAlert } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";

import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { DataItem, DataList } from "@/components/ui/data-list";
import { getBaseUrl } from "@/lib/config/env";
import { readOAuthErrorTicket } from "@/lib/oauth/error-ticket";

// The authorization endpoint's error page (RFC 6749 §4.1.2.1: shown to the buyer, never sent to an unverified
// redirect_uri), in the site's frame. What happened comes from the signed ticket the endpoint made; without a valid
// one the page says only that the request failed. Not framable, never cached, no referrer (proxy.ts,
// next.config.mjs).
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Authorization error · Agent Commerce Service" };

/** What the buyer can do about each error the authorization endpoint shows on a page. */
const ADVICE: Readonly<Record<string, string>> = {
  invalid_request:
    "The application sent a request we cannot accept, for example one that sends you back to an address it never registered. Nothing was linked. Go back to the application and start again; if it happens again, tell its developer.",
  invalid_client:
    "We could not confirm who the application is: its description (client metadata document) could not be read or is not valid. Nothing was linked. Try again later, or tell the application's developer.",
  server_error:
    "Something went wrong on our side. Nothing was linked. Go back to the application and try again in a moment.",
};
const GENERIC_ADVICE =
  "Nothing was linked to your account. Go back to the application that sent you here and start again.";

type Props = { searchParams: Promise<{ ticket?: string | string[] }> };

export default async function OAuthErrorPage({ searchParams }: Props) {
  const { ticket: raw } = await searchParams;
  const ticket = typeof raw === "string" ? await readOAuthErrorTicket(raw, { baseUrl: getBaseUrl() }) : null;
  return (
    <PageShell width="narrow">
      <section
        aria-labelledby="oauth-error-title"
        className="bg-card grid gap-5 rounded-xl border p-5 shadow-sm sm:p-6"
      >
        <div className="flex items-start gap-3">
          <div
            aria-hidden
            className="bg-destructive/10 text-destructive grid size-10 shrink-0 place-items-center rounded-lg"
          >
            <ShieldAlert className="size-5" />
          </div>
          <div className="grid gap-1.5">
            <h1 id="oauth-error-title" className="text-xl font-bold tracking-tight sm:text-2xl">
              This authorization request cannot be processed
            </h1>
            <p className="text-muted-foreground" data-testid="oauth-error-advice">
              {(ticket && ADVICE[ticket.error]) ?? GENERIC_ADVICE}
            </p>
          </div>
        </div>
        {ticket ? (
          <DataList className="bg-muted/50 rounded-lg border p-4">
            <DataItem label="What happened">
              <span data-testid="oauth-error-description" className="break-words">
                {ticket.description}
              </span>
            </DataItem>
            <DataItem label="Error code">
              <code data-error={ticket.error} className="text-xs">
                {ticket.error}
              </code>
            </DataItem>
          </DataList>
        ) : null}
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button asChild variant="outline">
            <Link href="/account/agents">Your linked agents</Link>
          </Button>
          <Button asChild variant="ghost">
            <Link href="/">Home page</Link>
          </Button>
        </div>
      </section>
    </PageShell>
  );
}
