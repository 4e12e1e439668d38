import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import { SetupChecklist } from "@/components/admin/setup-checklist";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyableCode } from "@/components/ui/copy-button";
import { storeForAccount } from "@/lib/accounts/store-access";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";
import { storeSetupChecklist } from "@/lib/stores/setup-checklist";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Store — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

export default async function StorePage({ params }: Props) {
  const account = await getMerchantSession();
  const { store_slug } = await params;
  if (!account) redirect(`/admin/sign-in?next=/admin/stores/${encodeURIComponent(store_slug)}`);
  let access;
  try {
    access = await storeForAccount(account, store_slug, "staff");
  } catch (thrown) {
    // a store this account has no part in looks exactly like one that does not exist
    if (toAppError(thrown).code === "store_not_found") notFound();
    throw thrown;
  }
  const { store, role } = access;
  const steps = await storeSetupChecklist(store);
  const base = `${getBaseUrl()}/s/${store.slug}`;
  const links = [
    { label: "Business profile (UCP)", href: `${base}/.well-known/ucp` },
    { label: "REST endpoint", href: base },
    { label: "MCP endpoint", href: `${base}/mcp` },
  ];
  return (
    <PageShell
      title={store.name}
      description={
        <span className="flex flex-wrap items-center gap-2">
          <Badge tone={store.mode === "live" ? "success" : "info"}>
            {store.mode === "live" ? "Live" : "Test mode"}
          </Badge>
          <span>
            {store.currency} · {store.country} ·{" "}
            {role === "operator" ? "You are the operator" : `You are its ${role}`}
          </span>
        </span>
      }
    >
      <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
        <div className="min-w-0 md:col-span-2">
          <SetupChecklist slug={store.slug} steps={steps} />
        </div>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Where agents find it</CardTitle>
            <CardDescription>
              Agents discover the store from its profile and shop over REST or MCP.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <dl className="grid gap-3 text-sm">
              {links.map((l) => (
                <div key={l.label} className="grid gap-0.5">
                  <dt className="text-muted-foreground">{l.label}</dt>
                  <dd>
                    <CopyableCode value={l.href} what={`the ${l.label}`} />
                  </dd>
                </div>
              ))}
            </dl>
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Payments</CardTitle>
            <CardDescription>
              {store.mode === "live"
                ? "Real payments on the rails below."
                : "Test mode: card payments go to the sandbox PSP; no real money moves."}
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-2 text-sm">
            <p>Card: {store.cardEnabled ? "on" : "off"}</p>
            <p>Crypto: {store.cryptoEnabled ? "on" : "off"}</p>
          </CardContent>
        </Card>
      </div>
    </PageShell>
  );
}
