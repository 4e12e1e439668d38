import "server-only";

import { AppError } from "@/lib/core/errors";

import { GAS_BUDGET, MAX_COINS_PER_TYPE, type PaymentLeg } from "./build-payment";
import type { ChainPort } from "./chain";
import {
  findCoinByType,
  resolveAcceptedCoins,
  resolveRequestedCoinOrThrow,
  SUI_TYPE,
  type CoinInfo,
  type SuiNetwork,
} from "./coins";
import type { Price, PriceOracle, PriceResult } from "./oracle";

// The funding algorithm of a crypto payment (SUI.md §2): which coins pay how much of a checkout's total.
// - `auto` (default): USD stablecoins first, in the store's accepted_coins order, then SUI; at most 3 coin types
//   (seed §8); the gas budget is reserved from the buyer's SUI before SUI pays anything.
// - A named coin (`input_coin_type`: symbol in any case or full type) pays alone; SUI still pays gas.
// Money is integers only and every rounding is against the buyer: a leg's base units are the ceiling of
// (minor units × a rational rate), FX is taken at the top of its confidence band and coin prices at the bottom of
// theirs. A stablecoin whose price is within ±1 % of 1.00 (with a confidence band under 0.5 %) pays 1:1 in USD
// (USD store: 1234 ¢ → 12 340 000 USDC units); otherwise it is priced like SUI, by the oracle with a 50 bp
// buffer. Stores in another currency (EUR) convert through the oracle's FX rate first.
// Only what the transaction we build can spend counts (coin objects, not the address balance: see
// build-payment.ts); a coin has at most the configured maximum size per payment (v1 liquidity), USDC excepted.
// Errors: unsupported_coin (named coin not accepted), insufficient_funds (the spendable coins do not cover the
// total plus gas), insufficient_liquidity (named coin without a usable price, or over its maximum size),
// payment_provider_error (no FX rate for the store currency, or the oracle/node failed).

export type Holding = { coinBalance: bigint; addressBalance: bigint };

export type QuoteLeg = {
  coinType: string;
  symbol: string;
  decimals: number;
  /** Base units the buyer pays. */
  amount: bigint;
  /** The part of the total (store minor units) this leg pays; the legs sum to the total exactly. */
  fiatMinor: bigint;
  /** The coin's USD price used (1 for a pegged stablecoin), with its source. */
  usdPrice: Price;
  pegged: boolean;
};

export type Quote = {
  mode: "auto" | "named";
  currency: string;
  totalMinor: bigint;
  legs: QuoteLeg[];
  /** SUI kept for gas (MIST), not part of any leg. */
  gasReserve: bigint;
  /** USD per unit of the store currency (null for USD stores). */
  fx: Price | null;
};

/** How long a quote holds (SUI.md §2: 5–10 min); completion judges the checkpoint time against it. */
export const QUOTE_WINDOW_MS = 10 * 60_000;
/** Coin types combined in one `auto` payment (seed §8). */
export const MAX_AUTO_COINS = 3;
/** Buffer on oracle-priced coins (SUI, a depegged stablecoin): 50 basis points. */
const BUFFER_BP = 50n;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** ISO 4217 minor-unit exponent (USD 2, JPY 0). */
export const currencyExponent = (currency: string): number => {
  try {
    const digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
      .maximumFractionDigits;
    if (digits === undefined) throw new Error("no digits");
    return digits;
  } catch {
    throw new AppError("invalid_request", `Unknown currency ${currency}`);
  }
};

/** value = price × 10^expo, as the fraction num/den. */
const fraction = (price: bigint, expo: number) =>
  expo >= 0 ? { num: price * pow10(expo), den: 1n } : { num: price, den: pow10(-expo) };

/** Within ±1 % of 1.00 and a confidence band under 0.5 % of the price. */
export const isPegged = (p: Price): boolean => {
  const { num, den } = fraction(p.price, p.expo);
  const diff = num > den ? num - den : den - num;
  return diff * 100n <= den && p.conf * 200n <= p.price;
};

/** Base units per store minor unit, as num/den, rounded against the buyer (see the header). */
type Rate = { num: bigint; den: bigint };

const rateOf = (coin: CoinInfo, usd: Price, pegged: boolean, fx: Price, exponent: number): Rate | null => {
  // one minor unit of the store currency in USD, at the top of the FX band
  const fxHigh = fraction(fx.price + fx.conf, fx.expo);
  // one whole coin in USD, at the bottom of its band (1 exactly when pegged)
  const coinLow = pegged ? { num: 1n, den: 1n } : fraction(usd.price - usd.conf, usd.expo);
  if (coinLow.num <= 0n || fxHigh.num <= 0n) return null;
  let num = fxHigh.num * pow10(coin.decimals) * coinLow.den;
  let den = fxHigh.den * pow10(exponent) * coinLow.num;
  if (!pegged) {
    num *= 10_000n + BUFFER_BP;
    den *= 10_000n;
  }
  return { num, den };
};

const unitsFor = (minor: bigint, rate: Rate): bigint => (minor * rate.num + rate.den - 1n) / rate.den;
/** The most minor units `units` can pay at `rate` (exact inverse of unitsFor's ceiling). */
const minorCoverable = (units: bigint, rate: Rate): bigint => (units * rate.den) / rate.num;

/** One coin's price and rate for a quote, or why it cannot pay (no feed, stale, not positive). */
const pricedCoin = (
  coin: CoinInfo,
  result: PriceResult,
  fx: Price,
  currency: string,
  exponent: number,
): { usd: Price; pegged: boolean; rate: Rate } | { reason: string } => {
  if (!result.ok) {
    // USDC is the unit of account of a USD store: without a fresh feed it still pays 1:1 there.
    if (coin.symbol === "USDC" && currency === "USD") {
      const one: Price = { price: 1n, conf: 0n, expo: 0, publishTimeMs: fx.publishTimeMs, source: "par" };
      return { usd: one, pegged: true, rate: rateOf(coin, one, true, fx, exponent)! };
    }
    return { reason: result.reason === "stale" ? "its price is stale" : "there is no price feed for it" };
  }
  const pegged = coin.kind === "stable" && isPegged(result.price);
  const rate = rateOf(coin, result.price, pegged, fx, exponent);
  return rate ? { usd: result.price, pegged, rate } : { reason: "its price is not positive" };
};

/**
 * What `fiatMinor` (minor units of `currency`) costs in base units of `coinType` at the oracle's rates now, priced
 * exactly as a quote prices it (peg rule, buffer, rounding against the buyer); null when the coin cannot be priced
 * now. Judges a payment that landed after its quote window.
 */
export const unitsAtCurrentRate = async (
  oracle: PriceOracle,
  network: SuiNetwork,
  coinType: string,
  fiatMinor: bigint,
  currency: string,
): Promise<bigint | null> => {
  const coin = findCoinByType(network, coinType);
  if (!coin) return null;
  const upper = currency.toUpperCase();
  const [usd, fx] = await Promise.all([oracle.usdPrice(coin), oracle.fxToUsd(upper)]);
  if (!fx.ok) return null;
  const p = pricedCoin(coin, usd, fx.price, upper, currencyExponent(upper));
  return "reason" in p ? null : unitsFor(fiatMinor, p.rate);
};

/**
 * The funding of a total from holdings and prices already read (pure).
 * @throws unsupported_coin, insufficient_funds, insufficient_liquidity, payment_provider_error, invalid_request
 */
export const computeQuote = (input: {
  network: SuiNetwork;
  acceptedCoins: readonly string[];
  requestedCoin?: string | null;
  totalMinor: bigint;
  currency: string;
  holdings: ReadonlyMap<string, Holding>;
  prices: ReadonlyMap<string, PriceResult>;
  fx: PriceResult;
  maxSize: (coin: CoinInfo) => bigint | null;
  gasReserve?: bigint;
}): Quote => {
  const { totalMinor } = input;
  if (totalMinor <= 0n) throw new AppError("invalid_request", "Nothing to pay: the total must be positive");
  const exponent = currencyExponent(input.currency);
  const currency = input.currency.toUpperCase();
  const gasReserve = input.gasReserve ?? GAS_BUDGET;
  const accepted = resolveAcceptedCoins(input.network, input.acceptedCoins);
  const requested =
    input.requestedCoin && input.requestedCoin.trim().toLowerCase() !== "auto"
      ? resolveRequestedCoinOrThrow(input.network, accepted, input.requestedCoin)
      : null;
  if (!input.fx.ok) {
    throw new AppError("payment_provider_error", `No usable ${currency}→USD rate (${input.fx.reason})`, {
      details: { provider: "oracle", reason: input.fx.reason },
    });
  }
  const fx = input.fx.price;

  const holdingOf = (coinType: string) =>
    input.holdings.get(coinType) ?? { coinBalance: 0n, addressBalance: 0n };
  const holding = (coin: CoinInfo) => holdingOf(coin.coinType);
  const sui = holdingOf(SUI_TYPE);
  if (sui.coinBalance < gasReserve) {
    throw new AppError(
      "insufficient_funds",
      `The wallet needs ${gasReserve} MIST of SUI in coin objects for gas (it has ${sui.coinBalance})`,
      { details: { gas_reserve: gasReserve.toString(), sui_spendable: sui.coinBalance.toString() } },
    );
  }
  /** Base units of `coin` this payment may use: coin objects (SUI after the gas reserve), capped by liquidity. */
  const spendable = (coin: CoinInfo) => {
    const own = holding(coin).coinBalance - (coin.coinType === SUI_TYPE ? gasReserve : 0n);
    return own > 0n ? own : 0n;
  };
  const limitOf = (coin: CoinInfo) => (coin.symbol === "USDC" ? null : input.maxSize(coin));

  const priced = (coin: CoinInfo) =>
    pricedCoin(
      coin,
      input.prices.get(coin.coinType) ?? { ok: false, reason: "no_feed" },
      fx,
      currency,
      exponent,
    );

  const leg = (coin: CoinInfo, p: { usd: Price; pegged: boolean }, amount: bigint, fiatMinor: bigint) => ({
    coinType: coin.coinType,
    symbol: coin.symbol,
    decimals: coin.decimals,
    amount,
    fiatMinor,
    usdPrice: p.usd,
    pegged: p.pegged,
  });

  if (requested) {
    const p = priced(requested);
    if ("reason" in p)
      throw new AppError("insufficient_liquidity", `${requested.symbol} cannot be priced: ${p.reason}`, {
        path: "$.input_coin_type",
      });
    const amount = unitsFor(totalMinor, p.rate);
    const limit = limitOf(requested);
    if (limit !== null && amount > limit) {
      throw new AppError(
        "insufficient_liquidity",
        `${amount} base units of ${requested.symbol} exceed the ${limit} one payment may use`,
        { path: "$.input_coin_type", details: { amount: amount.toString(), max: limit.toString() } },
      );
    }
    const available = spendable(requested);
    if (available < amount) {
      throw new AppError(
        "insufficient_funds",
        `The wallet's ${requested.symbol} coins (${available} base units spendable by this transaction) do not cover ${amount}`,
        {
          details: {
            coin_type: requested.coinType,
            needed: amount.toString(),
            spendable: available.toString(),
            address_balance: holding(requested).addressBalance.toString(),
          },
        },
      );
    }
    return {
      mode: "named",
      currency,
      totalMinor,
      legs: [leg(requested, p, amount, totalMinor)],
      gasReserve,
      fx: currency === "USD" ? null : fx,
    };
  }

  // auto: stablecoins in the store's order, then SUI. Each usable coin with what it can cover at most.
  const usable = [
    ...accepted.filter((c) => c.kind === "stable"),
    ...accepted.filter((c) => c.coinType === SUI_TYPE),
  ].flatMap((coin) => {
    const p = priced(coin);
    if ("reason" in p) return [];
    const limit = limitOf(coin);
    const units = limit === null || spendable(coin) < limit ? spendable(coin) : limit;
    const covers = minorCoverable(units, p.rate);
    return covers > 0n ? [{ coin, p, covers }] : [];
  });
  /** Fills the total from `coins` in order; what stays uncovered. */
  const fill = (coins: typeof usable) => {
    const legs: QuoteLeg[] = [];
    let remaining = totalMinor;
    for (const { coin, p, covers } of coins) {
      if (remaining === 0n) break;
      const fiatMinor = covers < remaining ? covers : remaining;
      legs.push(leg(coin, p, unitsFor(fiatMinor, p.rate), fiatMinor));
      remaining -= fiatMinor;
    }
    return { legs, remaining };
  };
  // The store's order first; when its first three coins fall short (dust in the preferred coins), the first
  // combination of at most three usable coins, in preference order, that covers the total.
  let best = fill(usable.slice(0, MAX_AUTO_COINS));
  const combos = (from: number, size: number): number[][] =>
    size === 0
      ? [[]]
      : Array.from({ length: Math.max(0, usable.length - from) }, (_, i) => from + i).flatMap((first) =>
          combos(first + 1, size - 1).map((rest) => [first, ...rest]),
        );
  if (best.remaining > 0n) {
    const candidates = [1, 2, 3]
      .slice(0, MAX_AUTO_COINS)
      .flatMap((size) => combos(0, size))
      .sort((x, y) => {
        for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
        return x.length - y.length;
      });
    for (const indexes of candidates) {
      const tried = fill(indexes.map((i) => usable[i]!));
      if (tried.remaining === 0n) {
        best = tried;
        break;
      }
      if (tried.remaining < best.remaining) best = tried;
    }
  }
  const { legs, remaining } = best;
  if (remaining > 0n) {
    const addressBalances = accepted.filter((c) => holding(c).addressBalance > 0n).map((c) => c.symbol);
    throw new AppError(
      "insufficient_funds",
      `The accepted coins this transaction can spend cover ${totalMinor - remaining} of ${totalMinor} ${currency} minor units` +
        (addressBalances.length > 0
          ? ` (address balances of ${addressBalances.join(", ")} cannot be spent by it)`
          : ""),
      { details: { covered_minor: (totalMinor - remaining).toString(), total_minor: totalMinor.toString() } },
    );
  }
  return { mode: "auto", currency, totalMinor, legs, gasReserve, fx: currency === "USD" ? null : fx };
};

/**
 * Reads the buyer's balances on the chain and the prices, then computes the quote.
 * @throws as computeQuote, and payment_provider_error when the node or the oracle fails.
 */
export const quotePayment = async (
  chain: ChainPort,
  oracle: PriceOracle,
  input: {
    buyer: string;
    acceptedCoins: readonly string[];
    requestedCoin?: string | null;
    totalMinor: bigint;
    currency: string;
    gasReserve?: bigint;
  },
): Promise<Quote> => {
  const accepted = resolveAcceptedCoins(chain.network, input.acceptedCoins);
  // SUI always: it pays the gas even when the store does not accept it
  const types = [...new Set([...accepted.map((c) => c.coinType), SUI_TYPE])];
  // Spendable = the coin objects build-payment.ts may use (its largest MAX_COINS_PER_TYPE), so a quote never
  // promises what the transaction cannot spend; the address balance is read only to say it exists.
  const [spendables, balances, prices, fx] = await Promise.all([
    Promise.all(
      types.map(async (type) =>
        (await chain.listCoins(input.buyer, type))
          .slice(0, MAX_COINS_PER_TYPE)
          .reduce((sum, c) => sum + c.balance, 0n),
      ),
    ),
    Promise.all(types.map((type) => chain.getBalance(input.buyer, type))),
    Promise.all(accepted.map((c) => oracle.usdPrice(c))),
    oracle.fxToUsd(input.currency),
  ]);
  return computeQuote({
    network: chain.network,
    acceptedCoins: input.acceptedCoins,
    requestedCoin: input.requestedCoin,
    totalMinor: input.totalMinor,
    currency: input.currency,
    holdings: new Map(
      types.map((type, i) => [
        type,
        { coinBalance: spendables[i]!, addressBalance: balances[i]!.addressBalance },
      ]),
    ),
    prices: new Map(accepted.map((c, i) => [c.coinType, prices[i]!])),
    fx,
    maxSize: oracle.maxSize,
    gasReserve: input.gasReserve,
  });
};

/** The quote's legs, paid to one merchant: what build-payment.ts turns into a transaction. */
export const legsForMerchant = (quote: Quote, merchant: string): PaymentLeg[] =>
  quote.legs.map((l) => ({ merchant, coinType: l.coinType, amount: l.amount }));
