import type { Metadata } from "next";
import Link from "next/link";

import { ResetPasswordForm } from "@/components/admin/account-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent } from "@/components/ui/card";

import { resetPassword } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Choose a new password — Merchant admin",
  robots: { index: false },
};

type Props = { searchParams: Promise<{ token?: string | string[] }> };

export default async function ResetPasswordPage({ searchParams }: Props) {
  const { token } = await searchParams;
  return (
    <PageShell width="narrow" title="Choose a new password">
      <Card>
        <CardContent className="pt-5 sm:pt-6">
          {typeof token === "string" && token ? (
            <ResetPasswordForm action={resetPassword} token={token} />
          ) : (
            <p className="text-sm">
              This page needs the link from the reset mail.{" "}
              <Link className="underline underline-offset-4" href="/admin/forgot-password">
                Ask for a new link
              </Link>
              .
            </p>
          )}
        </CardContent>
      </Card>
    </PageShell>
  );
}
