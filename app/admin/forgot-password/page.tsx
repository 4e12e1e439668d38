import type { Metadata } from "next";

import { ForgotPasswordForm } from "@/components/admin/account-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent } from "@/components/ui/card";

import { askForPasswordReset } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Forgot your password — Merchant admin",
  robots: { index: false },
};

export default function ForgotPasswordPage() {
  return (
    <PageShell
      width="narrow"
      title="Forgot your password?"
      description="We send a link to choose a new one to the address of your account."
    >
      <Card>
        <CardContent className="pt-5 sm:pt-6">
          <ForgotPasswordForm action={askForPasswordReset} />
        </CardContent>
      </Card>
    </PageShell>
  );
}
