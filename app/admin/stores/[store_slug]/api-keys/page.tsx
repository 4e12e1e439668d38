import { KeyRound } from "lucide-react";
import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import { KeyForm } from "@/components/admin/key-form";
import { KeyTable } from "@/components/admin/key-table";
import { PageShell } from "@/components/layout/page-shell";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/copy-button";
import { EmptyState } from "@/components/ui/empty-state";
import { merchantKeysPageOf } from "@/lib/accounts/store-rails";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";
import { MERCHANT_PERMISSION_LABELS, MERCHANT_PERMISSIONS } from "@/lib/credentials/merchant-keys";

import { createMerchantKeyAction, revokeMerchantKeyAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

export default async function ApiKeysPage({ params }: Props) {
  const account = await getMerchantSession();
  const { store_slug } = await params;
  if (!account) redirect(`/admin/sign-in?next=/admin/stores/${encodeURIComponent(store_slug)}/api-keys`);
  let page;
  try {
    page = await merchantKeysPageOf(account, store_slug);
  } catch (thrown) {
    if (toAppError(thrown).code === "store_not_found") notFound();
    throw thrown;
  }
  const { store, role, keys } = page;
  const canChange = role !== "staff";
  const api = `${getBaseUrl()}/merchant/v1/stores/${store.slug}`;
  const revoke = revokeMerchantKeyAction.bind(null, store.slug);
  return (
    <PageShell
      title="API keys"
      description={`Merchant keys script ${store.name} through the merchant REST API: one store each, never the shopping API.`}
    >
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Create a merchant key</CardTitle>
            <CardDescription>
              Send it as <code>X-API-Key</code>. It is shown once; only a hash is kept.
            </CardDescription>
          </CardHeader>
          <CardContent>
            {canChange ? (
              <KeyForm
                id="merchant-key"
                nameHint="The script or system that uses it."
                submitLabel="Create merchant key"
                action={createMerchantKeyAction.bind(null, store.slug)}
                permissions={MERCHANT_PERMISSIONS.map((p) => ({
                  value: p,
                  label: MERCHANT_PERMISSION_LABELS[p],
                }))}
                withoutPermissions="A merchant key needs at least one: reading orders alone is a good start."
              />
            ) : (
              <p className="text-sm">Only an owner of the store can create or revoke keys.</p>
            )}
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Use it</CardTitle>
            <CardDescription>
              Money in minor units; every route is in{" "}
              <a className="underline" href="/openapi.json">
                openapi.json
              </a>
              .
            </CardDescription>
          </CardHeader>
          <CardContent>
            <CodeBlock
              label="Example: read and refund an order with curl"
              what="the curl example"
              code={`curl ${api}/orders/<order id> \\
  -H 'X-API-Key: <merchant key>'

curl -X POST ${api}/orders/<order id>/refunds \\
  -H 'X-API-Key: <merchant key>' \\
  -H 'content-type: application/json' \\
  -d '{"amount": 500, "reason": "damaged"}'`}
            />
          </CardContent>
        </Card>
      </div>
      <section aria-labelledby="mkeys-heading" className="mt-8 grid grid-cols-1 gap-3">
        <h2 id="mkeys-heading" className="text-xl font-semibold">
          Keys of this store
        </h2>
        {keys.length === 0 ? (
          <EmptyState icon={<KeyRound />} title="No key yet">
            An owner creates one above.
          </EmptyState>
        ) : (
          <KeyTable
            label="Merchant keys"
            keys={[...keys].reverse()}
            keyPrefix="acsm"
            revoke={canChange ? revoke : undefined}
          />
        )}
      </section>
    </PageShell>
  );
}
