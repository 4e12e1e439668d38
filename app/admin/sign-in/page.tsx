import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { SignInForm } from "@/components/admin/account-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent } from "@/components/ui/card";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in — Merchant admin", robots: { index: false } };

type Props = { searchParams: Promise<{ next?: string | string[] }> };

/** Where to go after signing in: a path of this site only (never another origin). */
const safeNext = (next: string | string[] | undefined): string =>
  typeof next === "string" && /^\/(?![/\\])/.test(next) ? next : "/admin";

export default async function SignInPage({ searchParams }: Props) {
  const next = safeNext((await searchParams).next);
  if (await getMerchantSession()) redirect(next);
  return (
    <PageShell
      width="narrow"
      title="Sign in"
      description="The admin of your stores, and your platform keys as an agent developer."
    >
      <Card>
        <CardContent className="pt-5 sm:pt-6">
          <SignInForm next={next} />
        </CardContent>
      </Card>
    </PageShell>
  );
}
