import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { PageShell } from "@/components/layout/page-shell";
import { EmptyState } from "@/components/ui/empty-state";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { capturedMailFor } from "@/lib/mail/captured-mail";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Mail capture — Merchant admin", robots: { index: false } };

export default async function MailPage() {
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in?next=/admin/mail");
  const { capturing, mails } = await capturedMailFor(account);
  return (
    <PageShell
      title="Mail capture"
      description={
        capturing
          ? `No SMTP server is configured: mail is kept here instead of being sent. ${account.isOperator ? "You see every message." : "You see the messages sent to your address."}`
          : "Mail goes out through SMTP; only messages captured before that are listed."
      }
    >
      {mails.length === 0 ? (
        <EmptyState title="No captured mail">
          Password resets and order confirmations appear here in test mode.
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
                  To {m.to} ·{" "}
                  <time dateTime={m.createdAt.toISOString()}>
                    {m.createdAt.toISOString().slice(0, 19).replace("T", " ")} UTC
                  </time>
                </p>
                <pre className="bg-muted mt-2 rounded-md p-3 text-xs break-words whitespace-pre-wrap">
                  {m.text}
                </pre>
              </article>
            </li>
          ))}
        </ol>
      )}
    </PageShell>
  );
}
