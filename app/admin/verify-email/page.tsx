import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";

import { ResendVerificationForm, VerifyEmailForm } from "@/components/admin/account-forms";
import { Notice } from "@/components/admin/form-messages";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent } from "@/components/ui/card";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { mailPageAvailable } from "@/lib/mail/captured-mail";

import { resendVerificationAction, verifyEmailAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Verify your email — Merchant admin", robots: { index: false } };

type Props = { searchParams: Promise<{ token?: string | string[] }> };

// With the mailed link's token: a button that verifies (no sign-in needed, the link is the proof). Without: the
// signed-in account's state, and a new link on request.
export default async function VerifyEmailPage({ searchParams }: Props) {
  const { token } = await searchParams;
  if (typeof token === "string" && token) {
    return (
      <PageShell width="narrow" title="Verify your email" description="Confirm that the address is yours.">
        <Card>
          <CardContent className="pt-5 sm:pt-6">
            <VerifyEmailForm action={verifyEmailAction} token={token} />
          </CardContent>
        </Card>
      </PageShell>
    );
  }
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in?next=/admin/verify-email");
  return (
    <PageShell width="narrow" title="Verify your email">
      <Card>
        <CardContent className="grid gap-4 pt-5 sm:pt-6">
          {account.emailVerifiedAt ? (
            <>
              <Notice>{account.email} is verified.</Notice>
              <p className="text-sm">
                <Link className="underline underline-offset-4" href="/admin">
                  Back to your stores
                </Link>
              </p>
            </>
          ) : (
            <>
              <p className="text-sm">
                We mailed a link to <strong className="break-all">{account.email}</strong>: open it to confirm
                the address is yours. Until then you can run your own stores, but you cannot join another team
                or read other mail here.
              </p>
              {mailPageAvailable() ? (
                <p className="text-sm">
                  This service keeps its mail instead of sending it: the link is on{" "}
                  <Link className="underline underline-offset-4" href="/admin/mail">
                    the mail page
                  </Link>
                  .
                </p>
              ) : null}
              <ResendVerificationForm action={resendVerificationAction} />
            </>
          )}
        </CardContent>
      </Card>
    </PageShell>
  );
}
