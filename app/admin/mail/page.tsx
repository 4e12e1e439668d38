import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import { PageShell } from "@/components/layout/page-shell";
import { EmptyState } from "@/components/ui/empty-state";
import { LocalTime } from "@/components/ui/local-time";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { getBaseUrl } from "@/lib/config/env";
import { capturedMailFor, mailPageAvailable, type MailScope } from "@/lib/mail/captured-mail";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Mail capture — Merchant admin", robots: { index: false } };

/** Why the reader sees what it sees, in one sentence. */
const WHY: Record<MailScope, string> = {
  all: "As the operator you see every message.",
  own_address: "You see the messages sent to your verified address.",
  own_verification:
    "Anyone can sign up with any address, so until yours is verified you see only your own verification link.",
};

/**
 * The message's text with the service's own links followable, as a mail reader shows them; any other URL (a name
 * someone typed into a form can look like one) stays text.
 */
const withLinks = (text: string, base: string) =>
  text.split(/(https?:\/\/\S+)/).map((part, i) =>
    i % 2 === 1 && part.startsWith(`${base}/`) ? (
      <a key={i} href={part} className="underline underline-offset-4">
        {part}
      </a>
    ) : (
      part
    ),
  );

// The local mail capture: only where mail is kept instead of sent (no SMTP_URL) and not in production
// (lib/mail/captured-mail.ts); elsewhere the page does not exist.
export default async function MailPage() {
  if (!mailPageAvailable()) notFound();
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in?next=/admin/mail");
  const { scope, mails } = await capturedMailFor(account);
  return (
    <PageShell
      title="Mail capture"
      description={`No SMTP server is configured: mail is kept here instead of being sent. ${WHY[scope]}`}
    >
      {mails.length === 0 ? (
        <EmptyState title="No captured mail">
          Verification links, invitations, password resets and order confirmations appear here.
        </EmptyState>
      ) : (
        <ol className="grid gap-4" aria-label="Captured mail, newest first">
          {mails.map((m) => (
            <li key={m.id} className="rounded-lg border p-4">
              <article aria-labelledby={`mail-${m.id}`} className="grid gap-1">
                <h2 id={`mail-${m.id}`} className="font-semibold break-words">
                  {m.subject}
                </h2>
                <p className="text-muted-foreground text-xs break-all">
                  To {m.to} · <LocalTime at={m.createdAt} />
                </p>
                <pre className="bg-muted mt-2 rounded-md p-3 text-xs break-all whitespace-pre-wrap">
                  {withLinks(m.text, getBaseUrl())}
                </pre>
              </article>
            </li>
          ))}
        </ol>
      )}
    </PageShell>
  );
}
