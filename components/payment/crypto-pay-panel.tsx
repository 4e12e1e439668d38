"use client";

import { CircleAlert, Clock, Loader2, RefreshCw, Wallet } from "lucide-react";
import { signOut } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";

import { Money } from "@/components/cart/money";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type {
  WalletActionResult,
  WalletPageActions,
  WalletPayAnswer,
  WalletQuote,
} from "@/lib/checkout/crypto/wallet-page";

import { signerFor, signOrExecute } from "./crypto-signers";

// The wallet page's payment step: the quote of the prepared payment (per coin: amount, fiat value, rate source),
// a coin switch (a new prepare), then the wallet signs the prepared bytes and our server executes and settles them.
// A payment the chain has not finalised yet is shown as pending and re-checked; it is never offered again.

type Props = {
  actions: Pick<WalletPageActions, "prepare" | "pay" | "settleDigest" | "recheck">;
  slug: string;
  token: string;
  currency: string;
  network: string;
  address: string;
  testWallet: boolean;
  coins: string[];
  quote: WalletQuote | null;
  quoteError: { code: string; message: string } | null;
  pending: { digest: string } | null;
};

type Phase =
  | { kind: "idle" }
  | { kind: "busy"; what: string }
  | { kind: "pending"; digest: string }
  | { kind: "failed"; reason: string };

const utc = (iso: string) => `${iso.replace("T", " ").slice(0, 16)} UTC`;

export function CryptoPayPanel(props: Props) {
  const { slug, token, currency } = props;
  const router = useRouter();
  const [quote, setQuote] = useState(props.quote);
  const [coin, setCoin] = useState(props.quote?.coin ?? "auto");
  const [error, setError] = useState<string | null>(props.quoteError?.message ?? null);
  const [phase, setPhase] = useState<Phase>(
    props.pending ? { kind: "pending", digest: props.pending.digest } : { kind: "idle" },
  );
  const busy = phase.kind === "busy";

  const requote = async () => {
    setPhase({ kind: "busy", what: "Getting a quote…" });
    setError(null);
    const answer = await props.actions.prepare(slug, token, coin);
    if (answer.ok) {
      setQuote(answer.value);
      setCoin(answer.value.coin);
    } else {
      setQuote(null);
      setError(answer.message);
    }
    setPhase({ kind: "idle" });
  };

  const settle = useCallback(
    (answer: WalletActionResult<WalletPayAnswer>) => {
      if (!answer.ok) {
        setError(answer.message);
        return;
      }
      const { result, paidUrl } = answer.value;
      if (paidUrl) router.push(paidUrl);
      else if (result.kind === "pending") setPhase({ kind: "pending", digest: result.digest });
      else if (result.kind === "failed") setPhase({ kind: "failed", reason: result.reason });
      else router.refresh();
    },
    [router],
  );

  const pay = async () => {
    if (!quote) return;
    setError(null);
    setPhase({ kind: "busy", what: "Waiting for your wallet…" });
    try {
      const signer = await signerFor(props.address, props.network, props.testWallet);
      const paid = await signOrExecute(signer, quote.bytes);
      setPhase({
        kind: "busy",
        what: paid.kind === "signed" ? "Sending the payment…" : "Checking the payment…",
      });
      const answer =
        paid.kind === "signed"
          ? await props.actions.pay(slug, token, paid.bytes, paid.signature)
          : await props.actions.settleDigest(slug, token, paid.digest);
      setPhase({ kind: "idle" });
      settle(answer);
    } catch (e) {
      setPhase({ kind: "idle" });
      setError(e instanceof Error ? e.message : "The wallet did not sign");
    }
  };

  const { recheck: recheckAction } = props.actions;
  const recheck = useCallback(async () => {
    settle(await recheckAction(slug, token));
  }, [recheckAction, settle, slug, token]);

  // a pending payment is re-checked on its own every few seconds (the chain finalises in about a second)
  useEffect(() => {
    if (phase.kind !== "pending") return;
    const timer = setInterval(() => void recheck(), 5_000);
    return () => clearInterval(timer);
  }, [phase.kind, recheck]);

  if (phase.kind === "pending") {
    return (
      <Card aria-labelledby="pending-title" data-testid="crypto-pending">
        <CardHeader>
          <CardTitle id="pending-title" className="flex items-center gap-2 text-base">
            <Clock aria-hidden className="text-primary size-5" /> Payment sent, waiting for the chain
          </CardTitle>
          <CardDescription>
            Do not pay again. This page checks the transaction every few seconds and shows your order as soon
            as it is final.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3 text-sm">
          <p>
            Transaction <code className="text-xs break-all">{phase.digest}</code>
          </p>
          {error ? (
            <p role="alert" className="text-destructive font-medium">
              {error}
            </p>
          ) : null}
          <Button variant="outline" onClick={() => void recheck()} className="justify-self-start">
            <RefreshCw aria-hidden /> Check again
          </Button>
          <p className="text-muted-foreground">
            Your agent should read the checkout (or complete it with this transaction digest) — never start a
            new payment.
          </p>
        </CardContent>
      </Card>
    );
  }

  return (
    <Card aria-labelledby="crypto-title">
      <CardHeader>
        <CardTitle id="crypto-title" className="flex items-center gap-2 text-base">
          <Wallet aria-hidden className="text-primary size-5" /> Pay with crypto (Sui)
        </CardTitle>
        <CardDescription>
          Your wallet signs the payment below; nothing moves until it does.
          {props.testWallet ? " Test mode: the built-in test wallet signs with sandbox coins." : ""}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5">
        {phase.kind === "failed" ? (
          <div role="alert" className="bg-danger-soft text-danger-soft-foreground rounded-md p-3 text-sm">
            <p className="font-medium">The payment did not go through.</p>
            <p className="mt-1 break-words">{phase.reason}</p>
            <p className="mt-1">Get a new quote to try again.</p>
          </div>
        ) : null}
        {quote ? (
          <section aria-labelledby="quote-title" className="grid gap-2" data-testid="crypto-quote">
            <h3 id="quote-title" className="text-sm font-medium">
              You pay
            </h3>
            <ul className="grid gap-2">
              {quote.legs.map((leg) => (
                <li
                  key={leg.coinType}
                  data-testid="crypto-leg"
                  className="bg-muted/50 grid gap-0.5 rounded-lg border p-3 text-sm"
                >
                  <span className="flex flex-wrap items-baseline justify-between gap-x-3">
                    <span className="text-base font-semibold tabular-nums">
                      {leg.amountText} {leg.symbol}
                    </span>
                    <span className="text-muted-foreground">
                      ≈ <Money amountMinor={leg.fiatMinor} currency={currency} />
                    </span>
                  </span>
                  <span className="text-muted-foreground text-xs">Rate: {leg.rateSource}</span>
                </li>
              ))}
            </ul>
            <p className="text-muted-foreground text-xs">
              Network fee paid in SUI (at most {quote.gasReserveText} SUI). Quote valid until{" "}
              <time dateTime={quote.expiresAt}>{utc(quote.expiresAt)}</time>.
            </p>
          </section>
        ) : null}
        {error ? (
          <p
            role="alert"
            className="bg-danger-soft text-danger-soft-foreground flex gap-2 rounded-md p-3 text-sm"
          >
            <CircleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
            <span className="break-words">{error}</span>
          </p>
        ) : null}
        <form
          className="grid gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            void requote();
          }}
        >
          <fieldset className="grid gap-2">
            <legend className="mb-2 text-sm font-medium">Coin</legend>
            <div className="flex flex-wrap gap-2">
              {["auto", ...props.coins].map((c) => (
                <label
                  key={c}
                  className="has-[:checked]:border-primary has-[:checked]:bg-accent flex min-h-10 cursor-pointer items-center gap-2 rounded-lg border px-3 text-sm"
                >
                  <input
                    type="radio"
                    name="coin"
                    value={c}
                    checked={coin === c}
                    onChange={() => setCoin(c)}
                    className="accent-primary size-4"
                  />
                  {c === "auto" ? "Auto (stablecoins first)" : c}
                </label>
              ))}
            </div>
          </fieldset>
          <Button type="submit" variant="outline" disabled={busy} className="justify-self-start">
            {quote ? "Update quote" : "Get a quote"}
          </Button>
        </form>
        <div className="grid gap-2 border-t pt-4">
          <Button size="lg" className="w-full" disabled={busy || !quote} onClick={() => void pay()}>
            {busy ? <Loader2 aria-hidden className="animate-spin" /> : null}
            {busy ? phase.what : props.testWallet ? "Pay with the test wallet" : "Pay with your wallet"}
          </Button>
          <p className="text-muted-foreground text-xs break-all">
            Paying from <code>{props.address}</code>
          </p>
        </div>
      </CardContent>
    </Card>
  );
}

/** Signed in with a wallet this checkout is not for: sign out to use the right one. */
export function CryptoSignOut() {
  const router = useRouter();
  return (
    <Button
      variant="outline"
      onClick={async () => {
        await signOut({ redirect: false });
        router.refresh();
      }}
    >
      Sign out
    </Button>
  );
}
