import { Coins, HandCoins } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";

import { PayableBadge } from "@/components/admin/payable-status";
import { CloseOwedBackForm, CryptoSettingsForm, StripeKeysForm } from "@/components/admin/rails-forms";
import { PageShell } from "@/components/layout/page-shell";
import { TestCards } from "@/components/payment/test-cards";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatMoney } from "@/components/ui/format";
import { LocalTime } from "@/components/ui/local-time";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { railsPageOf } from "@/lib/accounts/store-rails";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";
import { storeCouponPayables } from "@/lib/coupons/operator";
import { coinTable } from "@/lib/payments/crypto/coins";

import { closeOwedBackAction, saveCryptoSettings, saveStripeKeys } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Payments — Merchant admin", robots: { index: false } };

type Props = { params: Promise<{ store_slug: string }> };

const amountsText = (
  amounts: { amount: string; symbol: string | null; coin_type: string; decimals: number | null }[],
) =>
  amounts
    .map((a) => {
      const symbol = a.symbol ?? a.coin_type;
      if (a.decimals === null || a.decimals === 0) return `${a.amount} ${symbol}`;
      const digits = a.amount.padStart(a.decimals + 1, "0");
      const whole = digits.slice(0, -a.decimals);
      const fraction = digits.slice(-a.decimals).replace(/0+$/, "");
      return `${whole}${fraction ? `.${fraction}` : ""} ${symbol}`;
    })
    .join(" + ");

export default async function PaymentsPage({ params }: Props) {
  const account = await getMerchantSession();
  const { store_slug } = await params;
  if (!account) redirect(`/admin/sign-in?next=/admin/stores/${encodeURIComponent(store_slug)}/payments`);
  let page;
  try {
    page = await railsPageOf(account, store_slug);
  } catch (thrown) {
    // a store this account has no part in looks exactly like one that does not exist
    if (toAppError(thrown).code === "store_not_found") notFound();
    throw thrown;
  }
  const { store, role, rails, owedBack } = page;
  const coupons = await storeCouponPayables(account, store_slug);
  const locale = await viewerLocale(store.country);
  const money = (minor: number, currency: string) => formatMoney(minor, currency, locale);
  const canChange = role !== "staff";
  const slug = store.slug;
  return (
    <PageShell
      title="Payments"
      description={
        <span className="flex flex-wrap items-center gap-2">
          <Badge tone={store.mode === "live" ? "success" : "info"}>
            {store.mode === "live" ? "Live" : "Test mode"}
          </Badge>
          <span>How {store.name} gets paid: cards through Stripe, crypto on Sui.</span>
        </span>
      }
    >
      {canChange ? null : (
        <p role="note" className="bg-muted mb-6 rounded-md px-3 py-2 text-sm">
          You are staff here: you can see the payment settings; only an owner can change them.
        </p>
      )}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Card (Stripe)</CardTitle>
            <CardDescription>
              Secret keys are encrypted at rest and never shown again: only their last four characters.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            {store.mode === "test" ? <TestCards title="Test mode: the sandbox takes these cards" /> : null}
            {canChange ? (
              <StripeKeysForm
                action={saveStripeKeys.bind(null, slug)}
                secretLast4={rails.card.stripe_secret_key_last4}
                webhookLast4={rails.card.stripe_webhook_secret_last4}
                publishableKey={rails.card.stripe_publishable_key}
              />
            ) : (
              <dl className="grid gap-2 text-sm">
                <dt className="text-muted-foreground">Secret key</dt>
                <dd>
                  {rails.card.stripe_secret_key_last4 ? `…${rails.card.stripe_secret_key_last4}` : "not set"}
                </dd>
                <dt className="text-muted-foreground">Publishable key</dt>
                <dd className="font-mono text-xs break-all">
                  {rails.card.stripe_publishable_key ?? "not set"}
                </dd>
              </dl>
            )}
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Crypto (Sui)</CardTitle>
            <CardDescription>
              {rails.crypto.enabled ? "Accepting" : "Not accepting"} crypto; settles on {rails.crypto.network}
              .
            </CardDescription>
          </CardHeader>
          <CardContent>
            {canChange ? (
              <CryptoSettingsForm
                action={saveCryptoSettings.bind(null, slug)}
                enabled={rails.crypto.enabled}
                coins={rails.crypto.accepted_coins}
                coinsByNetwork={{
                  mainnet: coinTable("mainnet").map(({ symbol, kind }) => ({ symbol, kind })),
                  testnet: coinTable("testnet").map(({ symbol, kind }) => ({ symbol, kind })),
                }}
                payoutAddress={rails.crypto.payout_address}
                network={rails.crypto.live_network === "testnet" ? "testnet" : "mainnet"}
              />
            ) : (
              <dl className="grid gap-2 text-sm">
                <dt className="text-muted-foreground">Accepted coins</dt>
                <dd>{rails.crypto.accepted_coins.join(", ") || "none"}</dd>
                <dt className="text-muted-foreground">Payout address</dt>
                <dd className="font-mono text-xs break-all">{rails.crypto.payout_address ?? "not set"}</dd>
              </dl>
            )}
          </CardContent>
        </Card>
      </div>
      <section aria-labelledby="owed-heading" className="mt-8 grid grid-cols-1 gap-3">
        <h2 id="owed-heading" className="text-xl font-semibold">
          Money owed back in crypto
        </h2>
        <p className="text-muted-foreground text-sm">
          Over-payments, late payments and refunds of crypto orders. The service holds no keys: send the coins
          from your wallet, then close the record with that transaction&apos;s digest; it is checked on the
          chain.
        </p>
        {owedBack.length === 0 ? (
          <EmptyState icon={<Coins />} title="Nothing owed back">
            Records appear here when a buyer is owed crypto.
          </EmptyState>
        ) : (
          <ul className="grid gap-3" aria-label="Open records">
            {owedBack.map((r) => (
              <li key={r.id}>
                <Card className="min-w-0">
                  <CardHeader>
                    <CardTitle className="text-base">{amountsText(r.amounts)}</CardTitle>
                    <CardDescription>
                      {r.reason} · to <code className="break-all">{r.buyer_address}</code> · {r.id}
                    </CardDescription>
                  </CardHeader>
                  <CardContent>
                    {canChange ? (
                      <CloseOwedBackForm action={closeOwedBackAction.bind(null, slug)} id={r.id} />
                    ) : null}
                  </CardContent>
                </Card>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="coupon-payables-heading" className="mt-8 grid grid-cols-1 gap-3">
        <h2 id="coupon-payables-heading" className="text-xl font-semibold">
          Owed by the service for coupons
        </h2>
        <p className="text-muted-foreground text-sm">
          When a buyer pays with a service coupon, the buyer pays the order total minus the coupon and the
          service owes you the coupon part; the service pays it outside the rails and marks it settled. A
          coupon on an order canceled before shipping is void.
        </p>
        <p className="text-sm" aria-live="polite">
          Open total:{" "}
          <strong>
            {coupons.open.length === 0
              ? "nothing"
              : coupons.open.map((t) => money(t.amount_minor, t.currency)).join(" + ")}
          </strong>
        </p>
        {coupons.payables.length === 0 ? (
          <EmptyState icon={<HandCoins />} title="Nothing owed for coupons">
            A line appears here for each order paid partly with a service coupon.
          </EmptyState>
        ) : (
          <Table aria-label="Owed by the service for coupons">
            <TableHeader>
              <TableRow>
                <TableHead>Order</TableHead>
                <TableHead>Amount</TableHead>
                <TableHead>Status</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {coupons.payables.map((p) => (
                <TableRow key={p.id}>
                  <TableCell className="text-xs break-all">
                    <Link
                      href={`/admin/stores/${encodeURIComponent(slug)}/orders/${encodeURIComponent(p.order_id)}`}
                      className="underline underline-offset-4"
                    >
                      {p.order_id}
                    </Link>
                  </TableCell>
                  <TableCell className="whitespace-nowrap">{money(p.amount_minor, p.currency)}</TableCell>
                  <TableCell>
                    <PayableBadge status={p.status} />
                    {p.settled_at ? (
                      <span className="text-muted-foreground block text-xs">
                        <LocalTime at={p.settled_at} />
                      </span>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </section>
    </PageShell>
  );
}
