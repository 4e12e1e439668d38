import { HandCoins, KeyRound, Ticket } from "lucide-react";
import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";

import { IssueCouponForm, SettlePayablesForm } from "@/components/admin/coupon-forms";
import { PayableBadge } from "@/components/admin/payable-status";
import { PageShell } from "@/components/layout/page-shell";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { formatDay, formatMoney } from "@/components/ui/format";
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
import { viewerLocale } from "@/components/ui/viewer-locale";
import { operatorListKeys } from "@/lib/accounts/operator";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { openTotals, operatorListCoupons, operatorListPayables } from "@/lib/coupons/operator";
import { currencyOptions } from "@/lib/stores/currencies";

import { issueCouponAction, operatorRevokeKeyAction, settlePayablesAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Operator — Merchant admin", robots: { index: false } };

const developerOf = (owner: { name: string; email: string } | null) =>
  owner ? `${owner.name} (${owner.email})` : "made with the CLI";

export default async function OperatorPage() {
  const account = await getMerchantSession();
  if (!account) redirect("/admin/sign-in?next=/admin/operator");
  if (!account.isOperator) notFound();
  const locale = await viewerLocale();
  const money = (minor: number, currency: string) => formatMoney(minor, currency, locale);
  // a coupon is good until the end of its day in UTC: the day is shown as that date, in the viewer's words
  const day = (iso: string) => formatDay(iso, locale);
  const keys = await operatorListKeys(account);
  const coupons = await operatorListCoupons(account);
  const payables = await operatorListPayables(account);
  const openByStore = [...new Set(payables.filter((p) => p.status === "open").map((p) => p.store_slug))].map(
    (slug) => {
      const mine = payables.filter((p) => p.store_slug === slug && p.status === "open");
      return {
        slug,
        name: mine[0]!.store_name,
        ids: mine.map((p) => p.id),
        label: openTotals(mine)
          .map((t) => money(t.amount_minor, t.currency))
          .join(" + "),
      };
    },
  );
  const now = new Date();
  return (
    <PageShell
      title="Operator"
      description="The service as a whole: every developer's platform keys, service coupons and what they owe merchants."
    >
      <section aria-labelledby="keys-heading" className="grid gap-3">
        <h2 id="keys-heading" className="text-xl font-semibold">
          Platform keys
        </h2>
        <p className="text-muted-foreground text-sm">
          A platform key may complete purchases in every store. Revoking one takes effect on the next request.
        </p>
        {keys.length === 0 ? (
          <EmptyState icon={<KeyRound />} title="No platform key yet">
            Developers create theirs at /developers; the CLI makes one with create-api-key.
          </EmptyState>
        ) : (
          <Table aria-label="Every platform key">
            <TableHeader>
              <TableRow>
                <TableHead>Name</TableHead>
                <TableHead secondary>Developer</TableHead>
                <TableHead secondary>Permissions</TableHead>
                <TableHead secondary>Last used</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {keys.map((k) => (
                <TableRow key={k.id}>
                  <TableCell className="font-medium break-words">
                    {k.name}
                    <code className="text-muted-foreground block text-xs font-normal">{`acs_${k.prefix}_…`}</code>
                    <TablePhoneDetails className="font-normal">
                      <span className="break-all">{developerOf(k.owner)}</span>
                    </TablePhoneDetails>
                  </TableCell>
                  <TableCell secondary className="text-xs break-all">
                    {developerOf(k.owner)}
                  </TableCell>
                  <TableCell secondary className="text-xs">
                    {k.permissions.join(", ") || "none"}
                  </TableCell>
                  <TableCell secondary className="text-xs whitespace-nowrap">
                    {k.lastUsedAt ? <LocalTime at={k.lastUsedAt} /> : "never"}
                  </TableCell>
                  <TableCell>
                    {k.revokedAt ? (
                      <Badge tone="danger">Revoked</Badge>
                    ) : (
                      <Badge tone="success">Active</Badge>
                    )}
                  </TableCell>
                  <TableCell>
                    {k.revokedAt ? null : (
                      <form action={operatorRevokeKeyAction}>
                        <input type="hidden" name="id" value={k.id} />
                        <Button type="submit" variant="outline" size="sm" aria-label={`Revoke ${k.name}`}>
                          Revoke
                        </Button>
                      </form>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </section>
      <section aria-labelledby="coupons-heading" className="mt-10 grid gap-3">
        <h2 id="coupons-heading" className="text-xl font-semibold">
          Service coupons
        </h2>
        <p className="text-muted-foreground text-sm">
          Funded by the service, not the merchant: the buyer pays the order total minus the coupon, and the
          service owes the store the coupon part. Each buyer uses a coupon once.
        </p>
        <div className="bg-card rounded-lg border p-4">
          <h3 className="mb-3 font-medium">Issue a coupon</h3>
          <IssueCouponForm
            action={issueCouponAction}
            minDay={now.toISOString().slice(0, 10)}
            currencies={currencyOptions()}
          />
        </div>
        {coupons.length === 0 ? (
          <EmptyState icon={<Ticket />} title="No coupon yet">
            Issued coupons are listed here with how many buyers hold and redeemed them.
          </EmptyState>
        ) : (
          <Table aria-label="Service coupons">
            <TableHeader>
              <TableRow>
                <TableHead>Coupon</TableHead>
                <TableHead className="hidden sm:table-cell">Amount</TableHead>
                <TableHead className="hidden sm:table-cell">Good until</TableHead>
                <TableHead>Held</TableHead>
                <TableHead>Redeemed</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {coupons.map((c) => {
                const expires = new Date(c.expires_at);
                return (
                  <TableRow key={c.id}>
                    <TableCell className="font-medium">
                      {c.description}
                      <span className="block font-normal sm:hidden">
                        {money(c.amount_minor, c.currency)} · until {day(c.expires_at)}
                        {expires <= now ? " (expired)" : ""}
                      </span>
                      <code className="text-muted-foreground block text-xs font-normal break-all">
                        {c.id}
                      </code>
                    </TableCell>
                    <TableCell className="hidden whitespace-nowrap sm:table-cell">
                      {money(c.amount_minor, c.currency)}
                    </TableCell>
                    <TableCell className="hidden text-xs whitespace-nowrap sm:table-cell">
                      {day(c.expires_at)}
                      {expires <= now ? (
                        <Badge tone="neutral" className="ml-2">
                          Expired
                        </Badge>
                      ) : null}
                    </TableCell>
                    <TableCell>{c.granted}</TableCell>
                    <TableCell>{c.redeemed}</TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
      </section>
      <section aria-labelledby="payables-heading" className="mt-10 grid gap-3">
        <h2 id="payables-heading" className="text-xl font-semibold">
          Payables to merchants
        </h2>
        <p className="text-muted-foreground text-sm">
          One per order that redeemed a coupon. Pay the store outside the rails, then mark its open payables
          settled; a payable is void when its order was canceled before shipping.
        </p>
        {openByStore.length > 0 ? (
          <ul className="grid gap-3 sm:grid-cols-2" aria-label="Open payables by store">
            {openByStore.map((s) => (
              <li key={s.slug} className="bg-card grid gap-2 rounded-lg border p-3 text-sm">
                <span>
                  <span className="font-medium">{s.name}</span> is owed {s.label}
                </span>
                <SettlePayablesForm
                  action={settlePayablesAction}
                  storeSlug={s.slug}
                  storeName={s.name}
                  payableIds={s.ids}
                  label={s.label}
                />
              </li>
            ))}
          </ul>
        ) : null}
        {payables.length === 0 ? (
          <EmptyState icon={<HandCoins />} title="Nothing owed">
            A payable is written when an order redeems a coupon.
          </EmptyState>
        ) : (
          <Table aria-label="Payables to merchants">
            <TableHeader>
              <TableRow>
                <TableHead>Store</TableHead>
                <TableHead className="hidden sm:table-cell">Order</TableHead>
                <TableHead>Amount</TableHead>
                <TableHead>Status</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {payables.map((p) => (
                <TableRow key={p.id}>
                  <TableCell className="font-medium">{p.store_name}</TableCell>
                  <TableCell className="hidden text-xs break-all sm:table-cell">
                    <code>{p.order_id}</code>
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
