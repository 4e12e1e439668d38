"use client";

import { CheckCircle2, CircleAlert, Clock, Loader2, Lock, RefreshCw, ShieldX, Wallet } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";

import { Money } from "@/components/cart/money";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { GroupPayResult, GroupWalletPage } from "@/lib/checkout/crypto/group-wallet-page";
import type { WalletActionResult } from "@/lib/checkout/crypto/wallet-page";

import { signerFor, signOrExecute } from "./crypto-signers";

// The combined payment page: each store's items, total and legs, the whole quote, and one button — the wallet
// signs the one transaction, our server executes it and completes every checkout. A checkout whose order could not
// be placed says why (money owed back); a transaction not final yet is re-checked on demand.

type Props = {
  page: GroupWalletPage | null;
  token: string;
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

const utc = (iso: string) => `${iso.replace("T", " ").slice(0, 16)} UTC`;

const describe = (r: GroupPayResult["checkouts"][number]["result"]) =>
  r.kind === "order_placed"
    ? `order ${r.orderId}`
    : r.kind === "pending"
      ? "sent, waiting for the chain"
      : `not completed: ${r.reason}`;

export function CryptoGroupView({ page, token, sandboxSignIn, actions }: Props) {
  const router = useRouter();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<GroupPayResult | null>(null);
  if (!page) {
    return (
      <Card>
        <CardHeader>
          <CardTitle className="text-base">This payment link is unknown</CardTitle>
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

  return (
    <div className="grid gap-6">
      <div className="grid gap-1.5">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">
          Pay {page.checkouts.length} stores at once
        </h1>
        <p className="text-muted-foreground flex items-start gap-1.5 text-sm">
          <Lock aria-hidden className="mt-0.5 size-4 shrink-0" /> One crypto transaction pays every store
          below
          {page.mode === "test" ? " (test mode: sandbox coins, no real money)" : ""}.
        </p>
      </div>
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_28rem]">
        <div className="grid gap-4" data-testid="group-checkouts">
          {page.checkouts.map((c) => (
            <Card key={c.checkoutId} aria-label={c.storeName} data-testid="group-checkout">
              <CardHeader>
                <CardTitle className="flex flex-wrap items-center justify-between gap-2 text-base">
                  <span>{c.storeName}</span>
                  {c.orderId ? (
                    <Badge tone="success" data-testid="group-checkout-order">
                      <CheckCircle2 aria-hidden className="size-3.5" /> Order {c.orderId}
                    </Badge>
                  ) : null}
                </CardTitle>
              </CardHeader>
              <CardContent className="grid gap-2 text-sm">
                <ul className="grid gap-1">
                  {c.lines.map((l, i) => (
                    <li key={i} className="flex justify-between gap-3">
                      <span>
                        {l.title} <span className="text-muted-foreground">× {l.quantity}</span>
                      </span>
                      <Money amountMinor={l.amountMinor} currency={c.currency} />
                    </li>
                  ))}
                </ul>
                <p className="flex justify-between gap-3 border-t pt-2 font-medium">
                  <span>Total</span>
                  <Money amountMinor={c.totalMinor} currency={c.currency} />
                </p>
                <p className="text-muted-foreground text-xs">
                  Paid with {c.legs.map((l) => l.text).join(" + ")}
                </p>
              </CardContent>
            </Card>
          ))}
        </div>
        <Card aria-labelledby="group-pay-title">
          <CardHeader>
            <CardTitle id="group-pay-title" className="flex items-center gap-2 text-base">
              <Wallet aria-hidden className="text-primary size-5" /> Pay with crypto (Sui)
            </CardTitle>
            <CardDescription>
              Your wallet signs once; nothing moves until it does.
              {page.testWallet ? " Test mode: the built-in test wallet signs with sandbox coins." : ""}
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <section aria-labelledby="group-quote-title" className="grid gap-2" data-testid="group-quote">
              <h3 id="group-quote-title" className="text-sm font-medium">
                You pay, in total
              </h3>
              <ul className="grid gap-2">
                {page.quote.legs.map((leg, i) => (
                  <li key={i} className="bg-muted/50 grid gap-0.5 rounded-lg border p-3 text-sm">
                    <span className="flex flex-wrap items-baseline justify-between gap-x-3">
                      <span className="text-base font-semibold tabular-nums">{leg.text}</span>
                      <span className="text-muted-foreground">
                        ≈ <Money amountMinor={leg.fiatMinor} currency={page.currency} />
                      </span>
                    </span>
                    <span className="text-muted-foreground text-xs">Rate: {leg.rateSource}</span>
                  </li>
                ))}
              </ul>
              <p className="text-muted-foreground text-xs">
                Network fee paid in SUI (at most {page.quote.gasReserveText} SUI). Quote valid until{" "}
                <time dateTime={page.expiresAt}>{utc(page.expiresAt)}</time>.
              </p>
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
            {result ? (
              <ul className="grid gap-1 text-sm" data-testid="group-result" role="status">
                {result.checkouts.map((c) => (
                  <li key={c.checkoutId}>
                    <span className="font-medium">{c.storeSlug}</span>: {describe(c.result)}
                  </li>
                ))}
              </ul>
            ) : null}
            {page.state === "paid" ? (
              <p className="flex items-center gap-2 font-medium" data-testid="group-paid">
                <CheckCircle2 aria-hidden className="text-success size-5" /> Paid: every store has your order.
              </p>
            ) : page.state === "partly_paid" ? (
              <div className="grid gap-2 text-sm" data-testid="group-partly-paid">
                <p className="flex items-center gap-2 font-medium">
                  <Clock aria-hidden className="size-4" /> Payment sent: do not pay again.
                </p>
                <Button variant="outline" disabled={busy !== null} onClick={() => void recheck()}>
                  <RefreshCw aria-hidden /> Check again and finish every order
                </Button>
              </div>
            ) : page.state === "expired" ? (
              <p className="text-sm">This quote expired. Ask your agent for a new combined payment.</p>
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
                  {busy ?? (page.testWallet ? "Pay all with the test wallet" : "Pay all with your wallet")}
                </Button>
                <p className="text-muted-foreground text-xs break-all">
                  Paying <Money amountMinor={page.totalMinor} currency={page.currency} /> from{" "}
                  <code>{access.address}</code>
                </p>
              </div>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  );
}
