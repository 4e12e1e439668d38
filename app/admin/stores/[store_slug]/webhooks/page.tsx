import type { Metadata } from "next";
import Link from "next/link";

import { loadStorePage } from "@/components/admin/store-page";
import { ButtonForm, WebhookUrlForm } from "@/components/admin/webhook-forms";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyableCode } from "@/components/ui/copy-button";
import { EmptyState } from "@/components/ui/empty-state";
import { LocalTime } from "@/components/ui/local-time";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TablePhoneDetails,
  TableRow,
} from "@/components/ui/table";
import { orderEventTitle } from "@/lib/orders/merchant-order-view";
import { webhookOverview } from "@/lib/webhooks/admin-webhooks";

import { enableEndpointAction, redeliverAction, rotateKeyAction, setWebhookUrlAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Webhooks — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

const STATE_WORD = { pending: "Pending", delivered: "Delivered", dead: "Gave up" } as const;

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
              <div className="grid gap-2 text-sm">
                {webhookUrl ? <CopyableCode value={webhookUrl} what="the webhook URL" /> : <p>No URL set.</p>}
                <p className="text-muted-foreground">Only owners change it.</p>
              </div>
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
            <div className="grid gap-1">
              <span>Current key ID</span>
              {current ? <CopyableCode value={current.kid} what="the signing key's ID" /> : <span>none</span>}
            </div>
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
                <TableHead scope="col" secondary>
                  Order · event
                </TableHead>
                <TableHead scope="col" secondary>
                  Target
                </TableHead>
                <TableHead scope="col">Status</TableHead>
                <TableHead scope="col" secondary>
                  Attempts
                </TableHead>
                <TableHead scope="col" secondary>
                  Last response
                </TableHead>
                <TableHead scope="col" secondary>
                  Last attempt
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {deliveries.map((d) => {
                const last = d.attempts[0];
                const order = (
                  <Link
                    className="font-mono underline underline-offset-4"
                    href={`${root}/orders/${d.order_id}`}
                  >
                    {d.order_id}
                  </Link>
                );
                const target = `${d.target === "store" ? "Your URL" : "Platform"}: ${d.endpoint.url}`;
                const response = last
                  ? `${last.status ?? last.error ?? "no answer"} · ${last.latency_ms} ms`
                  : "—";
                const lastAttempt = last ? (
                  <LocalTime at={last.at} />
                ) : d.next_attempt_at ? (
                  <>
                    due <LocalTime at={d.next_attempt_at} />
                  </>
                ) : (
                  "—"
                );
                return (
                  <TableRow key={d.webhook_id}>
                    <TableCell className="grid min-w-32 gap-2">
                      <span className="font-mono text-xs break-all">{d.webhook_id}</span>
                      <TablePhoneDetails>
                        <span>
                          {order} · {orderEventTitle(d.event_type)}
                        </span>
                        <span className="break-all">{target}</span>
                        <span>
                          {d.attempts.length} {d.attempts.length === 1 ? "attempt" : "attempts"} · {response}{" "}
                          · {lastAttempt}
                        </span>
                      </TablePhoneDetails>
                      <ButtonForm
                        action={redeliverAction.bind(null, store_slug, d.webhook_id)}
                        label="Redeliver"
                        ariaLabel={`Redeliver ${d.webhook_id}`}
                        pendingLabel="Queuing…"
                        variant="outline"
                      />
                    </TableCell>
                    <TableCell secondary className="text-xs break-all">
                      {order} · {orderEventTitle(d.event_type)}
                    </TableCell>
                    <TableCell secondary className="min-w-40 text-xs break-all">
                      {target}
                    </TableCell>
                    <TableCell>
                      <Badge
                        tone={d.state === "delivered" ? "success" : d.state === "dead" ? "danger" : "warning"}
                      >
                        {STATE_WORD[d.state]}
                      </Badge>
                    </TableCell>
                    <TableCell secondary>{d.attempts.length}</TableCell>
                    <TableCell secondary className="text-xs">
                      {response}
                    </TableCell>
                    <TableCell secondary className="text-xs whitespace-nowrap">
                      {lastAttempt}
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
