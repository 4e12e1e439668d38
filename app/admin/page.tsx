import { Store as StoreIcon } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";

import { MerchantFrame } from "@/components/admin/frame/merchant-frame";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { storesOfAccount } from "@/lib/accounts/store-access";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Merchant admin", robots: { index: false } };

const ROLE_LABEL = { owner: "Owner", staff: "Staff", operator: "Operator" } as const;

export default async function AdminHomePage() {
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in");
  const stores = await storesOfAccount(account);
  return (
    <MerchantFrame>
      <PageShell
        title="Your stores"
        description={
          <>
            Signed in as {account.name} ({account.email})
            {account.isOperator ? ", operator of this service" : ""}.
            {account.emailVerifiedAt ? null : (
              <>
                {" "}
                Your email is not verified yet:{" "}
                <Link className="underline underline-offset-4" href="/admin/verify-email">
                  verify it
                </Link>{" "}
                to join other stores&apos; teams.
              </>
            )}
          </>
        }
        actions={
          // the developer area, the operator's page and signing out are in the frame's sidebar (or its menu)
          <Button asChild>
            <Link href="/admin/stores/new">Create a store</Link>
          </Button>
        }
      >
        {stores.length === 0 ? (
          <EmptyState icon={<StoreIcon />} title="No store yet">
            A store you create, or one whose owner adds you, appears here.
          </EmptyState>
        ) : (
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {stores.map(({ store, role }) => (
              <li key={store.id}>
                <Card>
                  <CardHeader>
                    <CardTitle className="flex items-center justify-between gap-2">
                      <Link href={`/admin/stores/${store.slug}`}>{store.name}</Link>
                      <Badge>{ROLE_LABEL[role]}</Badge>
                    </CardTitle>
                    <CardDescription>
                      /s/{store.slug} · {store.mode === "live" ? "Live" : "Test mode"} · {store.currency}
                    </CardDescription>
                  </CardHeader>
                  <CardContent className="text-muted-foreground text-sm">
                    {[store.cardEnabled ? "Card" : null, store.cryptoEnabled ? "Crypto" : null]
                      .filter(Boolean)
                      .join(" and ") || "No payment rail"}{" "}
                    payments
                  </CardContent>
                </Card>
              </li>
            ))}
          </ul>
        )}
      </PageShell>
    </MerchantFrame>
  );
}
