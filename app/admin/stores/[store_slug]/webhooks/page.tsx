import type { Metadata } from "next";
import Link from "next/link";

import { loadStorePage } from "@/components/admin/store-page";
import { ButtonForm, WebhookUrlForm } from "@/components/admin/webhook-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { webhookOverview } from "@/lib/webhooks/admin-webhooks";

import { enableEndpointAction, redeliverAction, rotateKeyAction, setWebhookUrlAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Webhooks — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

const when = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

export default async function WebhooksPage({ params }: Props) {
  const { store_slug } = await params;
  const root = `/admin/stores/${encodeURIComponent(store_slug)}`;
  const { store, role, webhookUrl, keys, endpoints, deliveries } = await loadStorePage(
    `${root}/webhooks`,
    (account) => webhookOverview(account, store_slug),
  );
  const isOwner = role !== "staff";
  const current = keys.find((k) => !k.retiredAt);
  const disabled = endpoints.filter((e) => e.disabledAt);
  return (
    <PageShell
      title="Webhooks"
      description={`Order events of ${store.name}, signed and delivered to your URL and to the agents' platforms.`}
    >
      <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Your endpoint</CardTitle>
            <CardDescription>
              Every order change (placed, paid, fulfilled, canceled, refunded) is sent here.
            </CardDescription>
          </CardHeader>
          <CardContent>
            {isOwner ? (
              <WebhookUrlForm action={setWebhookUrlAction.bind(null, store_slug)} current={webhookUrl} />
            ) : (
              <p className="text-sm break-all">{webhookUrl ?? "No URL set."} Only owners change it.</p>
            )}
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Signing key</CardTitle>
            <CardDescription>
              Deliveries carry no shared secret: each is signed (HTTP Message Signatures) with the
              store&apos;s key, whose public half is in the store profile. Rotating it publishes a new key;
              the old one stays published for 7 days so in-flight deliveries still verify.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-3 text-sm">
            <p>
              Current key: <span className="font-mono text-xs break-all">{current?.kid ?? "none"}</span>
            </p>
            <p>
              <Link className="underline underline-offset-4" href={`/s/${store.slug}/.well-known/ucp`}>
                The profile with the public keys
              </Link>
            </p>
            {isOwner ? (
              <ButtonForm
                action={rotateKeyAction.bind(null, store_slug)}
                label="Rotate the signing key"
                pendingLabel="Rotating…"
              />
            ) : null}
          </CardContent>
        </Card>
      </div>
      {disabled.length > 0 ? (
        <section aria-labelledby="disabled-heading" className="mt-6 grid gap-3">
          <h2 id="disabled-heading" className="text-lg font-semibold">
            Disabled endpoints
          </h2>
          {disabled.map((e) => (
            <div key={e.id} className="grid gap-2 rounded-lg border p-3 text-sm">
              <p className="break-all">
                {e.url} — {e.disabledReason}
              </p>
              <ButtonForm
                action={enableEndpointAction.bind(null, store_slug, e.id)}
                label="Enable again"
                pendingLabel="Enabling…"
              />
            </div>
          ))}
        </section>
      ) : null}
      <section aria-labelledby="log-heading" className="mt-8 grid gap-3">
        <h2 id="log-heading" className="text-lg font-semibold">
          Delivery log
        </h2>
        {deliveries.length === 0 ? (
          <EmptyState title="No deliveries yet">
            Deliveries appear once an order changes and a URL is set.
          </EmptyState>
        ) : (
          <Table aria-label="Delivery log">
            <TableHeader>
              <TableRow>
                <TableHead scope="col">Delivery</TableHead>
                <TableHead scope="col">Order · event</TableHead>
                <TableHead scope="col">Target</TableHead>
                <TableHead scope="col">Status</TableHead>
                <TableHead scope="col">Attempts</TableHead>
                <TableHead scope="col">Last response</TableHead>
                <TableHead scope="col">Last attempt</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {deliveries.map((d) => {
                const last = d.attempts[0];
                return (
                  <TableRow key={d.webhook_id}>
                    <TableCell className="grid min-w-48 gap-2">
                      <span className="font-mono text-xs break-all">{d.webhook_id}</span>
                      <ButtonForm
                        action={redeliverAction.bind(null, store_slug, d.webhook_id)}
                        label="Redeliver"
                        ariaLabel={`Redeliver ${d.webhook_id}`}
                        pendingLabel="Queuing…"
                        variant="outline"
                      />
                    </TableCell>
                    <TableCell className="text-xs">
                      <Link
                        className="font-mono underline underline-offset-4"
                        href={`${root}/orders/${d.order_id}`}
                      >
                        {d.order_id}
                      </Link>{" "}
                      · #{d.sequence}
                    </TableCell>
                    <TableCell className="min-w-56 text-xs break-all">
                      {d.target === "store" ? "Your URL" : "Platform"}: {d.endpoint.url}
                    </TableCell>
                    <TableCell>
                      <Badge
                        tone={d.state === "delivered" ? "success" : d.state === "dead" ? "danger" : "warning"}
                      >
                        {d.state}
                      </Badge>
                    </TableCell>
                    <TableCell>{d.attempts.length}</TableCell>
                    <TableCell className="text-xs">
                      {last ? `${last.status ?? last.error ?? "no answer"} · ${last.latency_ms} ms` : "—"}
                    </TableCell>
                    <TableCell className="text-xs whitespace-nowrap">
                      {last ? (
                        <time dateTime={last.at}>{when(last.at)}</time>
                      ) : d.next_attempt_at ? (
                        `due ${when(d.next_attempt_at)}`
                      ) : (
                        "—"
                      )}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
      </section>
    </PageShell>
  );
}
