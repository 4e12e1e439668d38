"use client";

import {
  CheckCircle2,
  CircleAlert,
  Clock,
  ExternalLink,
  Loader2,
  Lock,
  RefreshCw,
  ShieldX,
  Wallet,
} from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";

import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import { formatCoin, formatMoney } from "@/components/ui/format";
import type { GroupPayResult, GroupWalletPage } from "@/lib/checkout/crypto/group-wallet-page";
import type { WalletActionResult } from "@/lib/checkout/crypto/wallet-page";

import { signerFor, signOrExecute } from "./crypto-signers";
import { OrderLines, OrderTotals } from "./order-summary";
import { explorerUrl, shortDigest } from "./pay-text";
import { NetworkFee, QuoteCountdown, QuoteLegs } from "./quote-details";

// The combined payment page, as Stripe Checkout would show it: one card per store with its items, shipping and tax
// and its total, then one total, the whole quote (coins with their value and rate, the network fee, a countdown)
// and one button — the wallet signs the one transaction, our server executes it and completes every checkout.
// Nothing is called paid before it is. Once every store has its order the page is the receipt: each store's order
// and what it was paid with, the transaction, and a link to My orders. A checkout whose order could not be placed
// says why (money owed back); a transaction not final yet is re-checked on demand.

type Props = {
  page: GroupWalletPage | null;
  token: string;
  locale: string;
  sandboxSignIn: boolean;
  actions: {
    pay: (
      token: string,
      transaction: string,
      signature: string,
    ) => Promise<WalletActionResult<GroupPayResult>>;
    settleDigest: (token: string, digest: string) => Promise<WalletActionResult<GroupPayResult>>;
    recheck: (token: string) => Promise<WalletActionResult<GroupPayResult | null>>;
  };
};

type Coins = GroupWalletPage["checkouts"][number]["coins"];

const coinsText = (coins: Coins, locale: string) =>
  coins.map((c) => formatCoin(c.amount, c.decimals, c.symbol, locale, c.decimals)).join(" + ");

const describe = (r: GroupPayResult["checkouts"][number]["result"]) =>
  r.kind === "order_placed"
    ? "order placed"
    : r.kind === "pending"
      ? "sent, being confirmed by the network"
      : `not completed: ${r.reason}`;

function Transaction({ page }: { page: GroupWalletPage }) {
  const link = explorerUrl(page.network, page.digest);
  const code = (
    <code title={page.digest} data-testid="group-transaction">
      {shortDigest(page.digest)}
    </code>
  );
  return link ? (
    <a href={link} target="_blank" rel="noreferrer" className="text-primary inline-flex items-center gap-1">
      {code}
      <ExternalLink aria-hidden className="size-3" />
      <span className="sr-only">(opens the explorer)</span>
    </a>
  ) : (
    <span>
      {code} <span className="text-muted-foreground">(sandbox)</span>
    </span>
  );
}

/** After paying: every store's order, what each was paid with, the one transaction, and where to see them later. */
function GroupReceipt({ page, locale }: { page: GroupWalletPage; locale: string }) {
  const coins = page.quote.legs;
  return (
    <div className="grid gap-6" data-testid="group-receipt">
      <div className="grid justify-items-center gap-2 text-center">
        <div
          aria-hidden
          className="bg-success-soft text-success-soft-foreground grid size-14 place-items-center rounded-full"
        >
          <CheckCircle2 className="size-7" />
        </div>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Payment received</h1>
        <p role="status" data-testid="group-paid">
          Thank you: {page.checkouts.length} stores have your order. There is nothing more to pay.
        </p>
      </div>
      <Card aria-labelledby="group-receipt-title">
        <CardHeader>
          <CardTitle id="group-receipt-title" as="h2" className="text-base">
            Receipt
          </CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4">
          <DataList>
            <DataItem label="Total paid">
              <span className="font-semibold tabular-nums" data-testid="group-receipt-total">
                {formatMoney(page.totalMinor, page.currency, locale)}
              </span>
            </DataItem>
            <DataItem label="Paid with">{coinsText(coins, locale)}</DataItem>
            <DataItem label="Transaction">
              <Transaction page={page} />
            </DataItem>
          </DataList>
          <ul aria-label="Orders" className="grid gap-3 border-t pt-4">
            {page.checkouts.map((c) => (
              <li
                key={c.checkoutId}
                data-testid="group-receipt-store"
                className="grid gap-2 rounded-lg border p-3 text-sm"
              >
                <p className="flex flex-wrap items-baseline justify-between gap-x-3">
                  <span className="font-semibold">{c.storeName}</span>
                  <span className="font-semibold tabular-nums">
                    {formatMoney(c.totalMinor, c.currency, locale)}
                  </span>
                </p>
                <OrderLines lines={c.lines} currency={c.currency} locale={locale} />
                <p className="text-muted-foreground flex flex-wrap justify-between gap-x-3 text-xs">
                  <span data-testid="group-checkout-order">
                    Order <code className="break-all">{c.orderId}</code>
                  </span>
                  <span>Paid with {coinsText(c.coins, locale)}</span>
                </p>
              </li>
            ))}
          </ul>
          <Link
            href="/account/orders"
            data-testid="my-orders-link"
            className="text-primary justify-self-center font-medium underline underline-offset-4"
          >
            Go to My orders
          </Link>
        </CardContent>
      </Card>
    </div>
  );
}

export function CryptoGroupView({ page, token, locale, sandboxSignIn, actions }: Props) {
  const router = useRouter();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<GroupPayResult | null>(null);
  if (!page) {
    return (
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="text-base">
            This payment link is unknown
          </CardTitle>
          <CardDescription>Ask your agent for a new combined payment.</CardDescription>
        </CardHeader>
      </Card>
    );
  }
  const { access } = page;

  const show = (answer: WalletActionResult<GroupPayResult | null>) => {
    if (!answer.ok) setError(answer.message);
    else if (answer.value) setResult(answer.value);
    router.refresh();
  };

  const pay = async () => {
    if (access.kind !== "buyer") return;
    setError(null);
    setBusy("Waiting for your wallet…");
    try {
      const signer = await signerFor(access.address, page.network, page.testWallet);
      const paid = await signOrExecute(signer, page.bytes);
      setBusy(paid.kind === "signed" ? "Sending the payment…" : "Checking the payment…");
      show(
        paid.kind === "signed"
          ? await actions.pay(token, paid.bytes, paid.signature)
          : await actions.settleDigest(token, paid.digest),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : "The wallet did not sign");
    } finally {
      setBusy(null);
    }
  };

  const recheck = async () => {
    setBusy("Checking…");
    try {
      show(await actions.recheck(token));
    } finally {
      setBusy(null);
    }
  };

  if (page.state === "paid") return <GroupReceipt page={page} locale={locale} />;
  const total = formatMoney(page.totalMinor, page.currency, locale);
  const unfinished = result?.checkouts.filter((c) => c.result.kind !== "order_placed") ?? [];

  return (
    <div className="grid gap-6">
      <div className="grid gap-1.5">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">
          Pay {page.checkouts.length} stores at once
        </h1>
        <p className="text-muted-foreground flex items-start gap-1.5 text-sm">
          <Lock aria-hidden className="mt-0.5 size-4 shrink-0" /> One crypto payment for the orders your agent
          prepared in every store below
          {page.mode === "test" ? " (test mode: sandbox coins, no real money)" : ""}.
        </p>
      </div>
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_28rem]">
        <div className="grid gap-4" data-testid="group-checkouts">
          {page.checkouts.map((c) => (
            <Card key={c.checkoutId} aria-label={c.storeName} data-testid="group-checkout">
              <CardHeader>
                <CardTitle as="h2" className="flex flex-wrap items-center justify-between gap-2 text-base">
                  <span>{c.storeName}</span>
                  {c.orderId ? (
                    <Badge tone="success" data-testid="group-checkout-order">
                      <CheckCircle2 aria-hidden className="size-3.5" /> Order placed
                    </Badge>
                  ) : null}
                </CardTitle>
              </CardHeader>
              <CardContent className="grid gap-3 text-sm">
                <OrderLines lines={c.lines} currency={c.currency} locale={locale} />
                <div className="border-t pt-3">
                  <OrderTotals
                    breakdown={c.breakdown}
                    totalMinor={c.totalMinor}
                    currency={c.currency}
                    locale={locale}
                    totalLabel={`Total for ${c.storeName}`}
                    testId="group-checkout-total"
                  />
                </div>
              </CardContent>
            </Card>
          ))}
        </div>
        <Card aria-labelledby="group-pay-title">
          <CardHeader>
            <CardTitle id="group-pay-title" as="h2" className="flex items-center gap-2 text-base">
              <Wallet aria-hidden className="text-primary size-5" /> Pay with crypto (Sui)
            </CardTitle>
            <CardDescription>
              Approve once in your wallet and every store gets its order. Nothing moves until you do.
              {page.testWallet ? " Test mode: the built-in test wallet pays with sandbox coins." : ""}
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <p
              className="flex items-baseline justify-between gap-3 border-b pb-3 text-base font-semibold"
              data-testid="group-total"
            >
              <span>Total for {page.checkouts.length} stores</span>
              <span className="tabular-nums">{total}</span>
            </p>
            <section aria-labelledby="group-quote-title" className="grid gap-2" data-testid="group-quote">
              <h3 id="group-quote-title" className="text-sm font-medium">
                You pay
              </h3>
              <QuoteLegs
                legs={page.quote.legs}
                currency={page.currency}
                locale={locale}
                testId="crypto-leg"
              />
              <NetworkFee
                gasReserve={page.quote.gasReserve}
                feeFiatMinor={page.quote.feeFiatMinor}
                currency={page.currency}
                locale={locale}
              />
              {page.state === "open" ? (
                <QuoteCountdown
                  expiresAt={page.expiresAt}
                  renderedAt={page.asOf}
                  expiredText="This price has expired. Ask your agent for a new combined payment."
                />
              ) : null}
            </section>
            {error ? (
              <p
                role="alert"
                className="bg-danger-soft text-danger-soft-foreground flex gap-2 rounded-md p-3 text-sm"
              >
                <CircleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
                <span className="break-words">{error}</span>
              </p>
            ) : null}
            {unfinished.length > 0 ? (
              <div role="status" data-testid="group-result">
                <ul className="grid gap-1 text-sm">
                  {unfinished.map((c) => (
                    <li key={c.checkoutId}>
                      <span className="font-medium">
                        {page.checkouts.find((x) => x.checkoutId === c.checkoutId)?.storeName ?? c.storeSlug}
                      </span>
                      : {describe(c.result)}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            {page.state === "partly_paid" ? (
              <div className="grid gap-2 text-sm" data-testid="group-partly-paid">
                <p className="flex items-center gap-2 font-medium">
                  <Clock aria-hidden className="size-4" /> Payment sent: please don&apos;t pay again.
                </p>
                <Button variant="outline" disabled={busy !== null} onClick={() => void recheck()}>
                  <RefreshCw aria-hidden /> Check again and finish every order
                </Button>
              </div>
            ) : page.state === "expired" ? (
              <p className="text-sm" data-testid="group-expired">
                This price has expired. Ask your agent for a new combined payment.
              </p>
            ) : access.kind === "signed_out" ? (
              <WalletSignIn sandbox={sandboxSignIn} />
            ) : access.kind === "refused" ? (
              <p className="flex items-center gap-2 text-sm" data-testid="group-refused">
                <ShieldX aria-hidden className="text-destructive size-5" /> This payment was prepared for
                another buyer&apos;s wallet.
              </p>
            ) : (
              <div className="grid gap-2 border-t pt-4">
                <Button size="lg" className="w-full" disabled={busy !== null} onClick={() => void pay()}>
                  {busy ? <Loader2 aria-hidden className="animate-spin" /> : null}
                  {busy ?? `Pay all with ${page.testWallet ? "the test wallet" : "your wallet"} — ${total}`}
                </Button>
                <p className="text-muted-foreground text-xs break-all">
                  Paying from <code>{access.address}</code>
                </p>
              </div>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  );
}
