"use client";

import { Clock, RefreshCw } from "lucide-react";
import { useEffect, useState } from "react";

import { Button } from "@/components/ui/button";
import { formatCoin, formatMoney } from "@/components/ui/format";

import { countdownText, ratePerCoinMinor, rateSourceText } from "./pay-text";

// A crypto quote as the buyer reads it: each coin amount with its value in the store's currency and the rate it was
// worked out at, the network fee in that currency too, and how long the price is held — a live countdown, then a
// one-click refresh (where the page can ask for a new quote) once it lapses.

export type QuoteLegView = {
  symbol: string;
  /** Base units (decimal string) and the coin's decimals. */
  amount: string;
  decimals: number;
  fiatMinor: number;
  rateSource: string;
};

export function QuoteLegs({
  legs,
  currency,
  locale,
  testId,
}: {
  legs: QuoteLegView[];
  currency: string;
  locale: string;
  testId?: string;
}) {
  return (
    <ul className="grid gap-2">
      {legs.map((leg) => (
        <li
          key={leg.symbol}
          data-testid={testId}
          className="bg-muted/50 grid gap-0.5 rounded-lg border p-3 text-sm"
        >
          <span className="flex flex-wrap items-baseline justify-between gap-x-3">
            {/* every digit that moves: the amount the wallet signs, not a rounded one */}
            <span className="text-base font-semibold tabular-nums">
              {formatCoin(leg.amount, leg.decimals, leg.symbol, locale, leg.decimals)}
            </span>
            <span className="text-muted-foreground tabular-nums" data-testid="crypto-leg-fiat">
              ≈ {formatMoney(leg.fiatMinor, currency, locale)}
            </span>
          </span>
          <span className="text-muted-foreground text-xs" data-testid="crypto-leg-rate">
            1 {leg.symbol} ={" "}
            {formatMoney(ratePerCoinMinor(leg.amount, leg.decimals, leg.fiatMinor), currency, locale)} (
            {rateSourceText(leg.rateSource)})
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The most the network can charge, in SUI and in the store's currency (when SUI has a price). */
export function NetworkFee({
  gasReserve,
  feeFiatMinor,
  currency,
  locale,
}: {
  gasReserve: string;
  feeFiatMinor: number | null;
  currency: string;
  locale: string;
}) {
  return (
    <p
      className="text-muted-foreground flex flex-wrap justify-between gap-x-3 text-xs"
      data-testid="crypto-fee"
    >
      <span>Network fee, paid in SUI</span>
      <span className="tabular-nums">
        at most {formatCoin(gasReserve, 9, "SUI", locale)}
        {feeFiatMinor !== null ? ` (≈ ${formatMoney(feeFiatMinor, currency, locale)})` : ""}
      </span>
    </p>
  );
}

/**
 * How long the quoted price is held, counting down each second. The server renders the time left as of its render;
 * the browser takes over after hydration. When it lapses, `onRefresh` (if given) offers a new quote in one click.
 */
export function QuoteCountdown({
  expiresAt,
  renderedAt,
  onRefresh,
  busy = false,
  expiredText = "This price has expired.",
}: {
  expiresAt: string;
  /** The moment the page was rendered (ISO): the time left shown before the browser's clock takes over. */
  renderedAt: string;
  onRefresh?: () => void;
  busy?: boolean;
  expiredText?: string;
}) {
  const end = Date.parse(expiresAt);
  const [now, setNow] = useState(() => Date.parse(renderedAt));
  useEffect(() => {
    // the browser's clock from the first tick on (at once, then every second)
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [expiresAt]);
  const left = end - now;
  if (left <= 0) {
    return (
      <div
        role="status"
        data-testid="quote-expired"
        className="bg-warning-soft text-warning-soft-foreground flex flex-wrap items-center justify-between gap-2 rounded-md p-3 text-sm"
      >
        <span className="flex items-center gap-2 font-medium">
          <Clock aria-hidden className="size-4 shrink-0" /> {expiredText}
        </span>
        {onRefresh ? (
          <Button size="sm" variant="outline" disabled={busy} onClick={onRefresh}>
            <RefreshCw aria-hidden /> Get a new price
          </Button>
        ) : null}
      </div>
    );
  }
  return (
    <p className="text-muted-foreground flex items-center gap-1.5 text-xs" data-testid="quote-countdown">
      <Clock aria-hidden className="size-3.5 shrink-0" />
      <span>
        Price held for{" "}
        <time
          role="timer"
          dateTime={`PT${Math.ceil(left / 1000)}S`}
          className="text-foreground font-medium tabular-nums"
        >
          {countdownText(left)}
        </time>
      </span>
    </p>
  );
}
