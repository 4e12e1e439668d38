"use client";

import { CircleAlert, Clock, Loader2, RefreshCw, Wallet } from "lucide-react";
import { signOut } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatMoney } from "@/components/ui/format";
import type {
  WalletActionResult,
  WalletPageActions,
  WalletPayAnswer,
  WalletQuote,
} from "@/lib/checkout/crypto/wallet-page";

import { signerFor, signOrExecute } from "./crypto-signers";
import { NetworkFee, QuoteCountdown, QuoteLegs } from "./quote-details";

// The wallet page's payment step: the quote of the prepared payment (per coin: amount, value in the store's
// currency and the rate used; the network fee; a countdown to the quote's expiry), the coin choice (choosing one
// asks for a new quote at once), then the wallet signs the prepared bytes and our server executes and settles
// them. A payment the chain has not finalised yet is shown as pending and re-checked; it is never offered again.

type Props = {
  actions: Pick<WalletPageActions, "prepare" | "pay" | "settleDigest" | "recheck">;
  slug: string;
  token: string;
  currency: string;
  /** The checkout's total (minor units), on the pay button. */
  totalMinor: number;
  locale: string;
  /** When the server rendered the page (ISO): the countdown's start before the browser's clock takes over. */
  renderedAt: string;
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

const PRICE_EXPIRED =
  "The price expired before the payment was sent, so nothing was charged. Get a new price, then pay again.";

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
  // the quote whose price has lapsed (by the browser's clock): it cannot be paid any more, so Pay waits for a new
  // price instead of asking the wallet to sign something the service would refuse
  const [lapsedFor, setLapsedFor] = useState<string | null>(null);
  useEffect(() => {
    if (!quote) return;
    const { expiresAt } = quote;
    const end = Date.parse(expiresAt);
    const timer = setInterval(() => setLapsedFor(Date.now() >= end ? expiresAt : null), 1_000);
    return () => clearInterval(timer);
  }, [quote]);
  const lapsed = !!quote && lapsedFor === quote.expiresAt;

  const requote = async (chosen: string) => {
    setPhase({ kind: "busy", what: "Getting a new price…" });
    setError(null);
    try {
      const answer = await props.actions.prepare(slug, token, chosen);
      if (answer.ok) {
        setQuote(answer.value);
        setCoin(answer.value.coin);
      } else {
        setQuote(null);
        setError(answer.message);
      }
    } catch {
      // the server could not be reached: the choice stays open, nothing was prepared that the buyer can pay
      setQuote(null);
      setError("We could not get a price just now. Check your connection and choose a coin again.");
    } finally {
      setPhase({ kind: "idle" });
    }
  };

  const choose = (chosen: string) => {
    if (chosen === coin && quote) return;
    setCoin(chosen);
    void requote(chosen);
  };

  const settle = useCallback(
    (answer: WalletActionResult<WalletPayAnswer>) => {
      if (!answer.ok) {
        // the server found the price lapsed: the quote shown can no longer be paid, offer a new one
        if (answer.code === "checkout_not_modifiable") setQuote(null);
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
      // the price lapsed while the wallet was open: a signature is not a payment, so nothing is sent (the server
      // would refuse it too); a wallet that executed itself has paid, and its digest is settled whatever the time
      if (paid.kind === "signed" && Date.now() >= Date.parse(quote.expiresAt)) {
        setPhase({ kind: "idle" });
        setError(PRICE_EXPIRED);
        return;
      }
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
            <Clock aria-hidden className="text-primary size-5" /> Payment sent, being confirmed
          </CardTitle>
          <CardDescription>
            Please don&apos;t pay again. This page checks every few seconds and shows your receipt as soon as
            the network confirms the payment.
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
          Choose a coin, then approve the payment in your wallet. Nothing moves until you do.
          {props.testWallet ? " Test mode: the built-in test wallet pays with sandbox coins." : ""}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5">
        {phase.kind === "failed" ? (
          <div role="alert" className="bg-danger-soft text-danger-soft-foreground rounded-md p-3 text-sm">
            <p className="font-medium">The payment did not go through.</p>
            <p className="mt-1 break-words">{phase.reason}</p>
            <p className="mt-1">Choose a coin to get a new price and try again.</p>
          </div>
        ) : null}
        <fieldset className="grid gap-2" disabled={busy}>
          <legend className="mb-2 text-sm font-medium">Pay with</legend>
          <div className="flex flex-wrap gap-2">
            {["auto", ...props.coins].map((c) => (
              <label
                key={c}
                className="has-[:checked]:border-primary has-[:checked]:bg-accent has-[:focus-visible]:ring-ring flex min-h-10 cursor-pointer items-center gap-2 rounded-lg border px-3 text-sm has-[:focus-visible]:ring-2"
              >
                <input
                  type="radio"
                  name="coin"
                  value={c}
                  checked={coin === c}
                  onChange={() => choose(c)}
                  className="accent-primary size-4"
                />
                {c === "auto" ? "Automatic (stablecoins first)" : c}
              </label>
            ))}
          </div>
        </fieldset>
        {quote ? (
          <section aria-labelledby="quote-title" className="grid gap-2" data-testid="crypto-quote">
            <h3 id="quote-title" className="text-sm font-medium">
              You pay
            </h3>
            <QuoteLegs legs={quote.legs} currency={currency} locale={props.locale} testId="crypto-leg" />
            <NetworkFee
              gasReserve={quote.gasReserve}
              feeFiatMinor={quote.feeFiatMinor}
              currency={currency}
              locale={props.locale}
            />
            <QuoteCountdown
              key={quote.expiresAt}
              expiresAt={quote.expiresAt}
              renderedAt={props.renderedAt}
              busy={busy}
              onRefresh={() => void requote(coin)}
            />
          </section>
        ) : null}
        {error ? (
          <div
            role="alert"
            className="bg-danger-soft text-danger-soft-foreground grid gap-2 rounded-md p-3 text-sm"
          >
            <p className="flex gap-2">
              <CircleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
              <span className="break-words">{error}</span>
            </p>
            {!quote ? (
              <Button
                size="sm"
                variant="outline"
                disabled={busy}
                className="justify-self-start"
                onClick={() => void requote(coin)}
              >
                <RefreshCw aria-hidden /> Get a new price
              </Button>
            ) : null}
          </div>
        ) : null}
        <div className="grid gap-2 border-t pt-4">
          <Button size="lg" className="w-full" disabled={busy || !quote || lapsed} onClick={() => void pay()}>
            {busy ? <Loader2 aria-hidden className="animate-spin" /> : null}
            {busy
              ? phase.what
              : `Pay with ${props.testWallet ? "the test wallet" : "your wallet"} — ${formatMoney(props.totalMinor, currency, props.locale)}`}
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
