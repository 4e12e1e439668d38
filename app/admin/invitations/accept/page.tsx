import type { Metadata } from "next";
import Link from "next/link";

import { AcceptInvitationForm } from "@/components/admin/account-forms";
import { FormError } from "@/components/admin/form-messages";
import { PageShell } from "@/components/layout/page-shell";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { LocalTime } from "@/components/ui/local-time";
import { viewInvitation, type InvitationView } from "@/lib/accounts/store-invitations";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

import { acceptInvitationAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Join a store's team — Merchant admin", robots: { index: false } };

type Props = { searchParams: Promise<{ token?: string | string[] }> };

// An invitation link: what it invites to, then either the button that accepts it (signed in) or the way to sign in
// or sign up with the invited address. lib/accounts/store-invitations.ts decides; this page only shows.
export default async function AcceptInvitationPage({ searchParams }: Props) {
  const raw = (await searchParams).token;
  const token = typeof raw === "string" ? raw : "";
  let invitation: InvitationView | null = null;
  let problem: string | null = null;
  try {
    invitation = await viewInvitation({ token });
  } catch (thrown) {
    const error = toAppError(thrown);
    if (error.code === "internal_error") throw thrown;
    problem = error.message;
  }
  const account = invitation ? await getMerchantSession() : null;
  const here = `/admin/invitations/accept?token=${encodeURIComponent(token)}`;
  return (
    <PageShell width="narrow" title="Join a store's team">
      <Card>
        <CardContent className="grid gap-4 pt-5 sm:pt-6">
          {!invitation ? (
            <FormError message={problem} />
          ) : (
            <>
              <p className="text-sm">
                {invitation.invitedBy} invites <strong className="break-all">{invitation.email}</strong> to
                run <strong>{invitation.storeName}</strong> as{" "}
                {invitation.role === "owner" ? "an owner" : "staff"}. The invitation works once, until{" "}
                <LocalTime at={invitation.expiresAt} />.
              </p>
              {account ? (
                <>
                  <p className="text-muted-foreground text-sm">
                    Signed in as <span className="break-all">{account.email}</span>.
                  </p>
                  <AcceptInvitationForm action={acceptInvitationAction} token={token} />
                </>
              ) : (
                <div className="flex flex-wrap gap-2">
                  <Button asChild>
                    <Link href={`/admin/sign-in?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>
                  </Button>
                  <Button asChild variant="outline">
                    <Link href="/admin/sign-up">Create an account</Link>
                  </Button>
                </div>
              )}
            </>
          )}
        </CardContent>
      </Card>
    </PageShell>
  );
}
