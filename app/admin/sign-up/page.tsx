import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { SignUpForm } from "@/components/admin/account-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent } from "@/components/ui/card";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";

import { signUp } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Create an account — Merchant admin", robots: { index: false } };

export default async function SignUpPage() {
  if (await getMerchantSession()) redirect("/admin");
  return (
    <PageShell
      width="narrow"
      title="Create an account"
      description="Run stores that AI agents can buy from, or build an agent with your own platform keys."
    >
      <Card>
        <CardContent className="pt-5 sm:pt-6">
          <SignUpForm action={signUp} />
        </CardContent>
      </Card>
    </PageShell>
  );
}
