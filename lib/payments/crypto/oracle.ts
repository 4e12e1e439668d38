import "server-only";

import { getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";

import type { CoinInfo } from "./coins";

// The price oracle port of the crypto rail (SUI.md §2): the USD price of a coin, the USD value of a store
// currency (FX), and how much of a coin one payment may use (v1 liquidity: a configured maximum size per coin).
// Prices are Pyth-shaped integers — value = price × 10^expo, with a confidence interval `conf` in the same
// units — so quotes never touch floats. Two adapters:
// - the fixed-rate oracle (test-mode stores, the demo, tests): scripted rates, FX and depth, always fresh;
// - Pyth Hermes v2 ("latest price update", parsed), with a configurable endpoint and optional bearer token;
//   a price older than 60 s is refused as stale.
// An oracle that cannot be reached or answers garbage throws payment_provider_error (provider "pyth"); a coin
// with no feed, or a stale one, is an answer (`{ok: false}`), which the quote turns into its own code.

export type Price = {
  price: bigint;
  conf: bigint;
  expo: number;
  publishTimeMs: number;
  /** Where it came from, as the quote shows it ("fixed", "pyth"). */
  source: string;
};

export type PriceResult = { ok: true; price: Price } | { ok: false; reason: "no_feed" | "stale" };

export type PriceOracle = {
  /** USD price of one whole coin. */
  usdPrice: (coin: CoinInfo) => Promise<PriceResult>;
  /** USD value of one unit of `currency` (ISO 4217); USD itself is exactly 1. */
  fxToUsd: (currency: string) => Promise<PriceResult>;
  /** The most base units of `coin` one payment may use; null = no limit. */
  maxSize: (coin: CoinInfo) => bigint | null;
};

/** Prices older than this are refused (SUI.md §2). */
export const MAX_PRICE_AGE_MS = 60_000;

const ONE_USD: Price = { price: 1n, conf: 0n, expo: 0, publishTimeMs: 0, source: "identity" };

/** "2.5" → 25 × 10^-1; integers only, so a rate is exact. */
export const parseDecimal = (text: string): { value: bigint; expo: number } => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${text}`);
  const fraction = match[2] ?? "";
  return { value: BigInt(`${match[1]}${fraction}`), expo: fraction.length === 0 ? 0 : -fraction.length };
};

export type FixedRates = {
  /** USD per whole coin, by our symbol (any case): "1.00", "2.50". A coin without a rate has no feed. */
  usd: Record<string, string>;
  /** USD per unit of a currency: { EUR: "1.08" }. */
  fx?: Record<string, string>;
  /** Maximum base units per payment, by symbol (the scripted depth that produces insufficient_liquidity). */
  depth?: Record<string, bigint>;
  /** Confidence band as a share of the price, e.g. "0.001"; default 0. */
  conf?: string;
};

/** The default rates of test-mode stores: round numbers a reader can check by hand. */
export const SANDBOX_RATES: FixedRates = {
  usd: { SUI: "2.50", USDC: "1.00", USDT: "1.00", AUSD: "1.00", suiUSDe: "1.00", USDsui: "1.00" },
  fx: { EUR: "1.08" },
  // 10 000 SUI per payment: the demo's SUI depth (v1 liquidity is a configured size per coin)
  depth: { SUI: 10_000n * 1_000_000_000n },
};

const bySymbol = <T>(map: Record<string, T> | undefined, symbol: string): T | undefined => {
  if (!map) return undefined;
  const key = Object.keys(map).find((k) => k.toUpperCase() === symbol.toUpperCase());
  return key === undefined ? undefined : map[key];
};

const fixedPrice = (rate: string, confShare: string | undefined, now: number): Price => {
  const { value, expo } = parseDecimal(rate);
  let conf = 0n;
  if (confShare) {
    const share = parseDecimal(confShare);
    // conf = value × share, in the price's units (rounded up: a wider band is the safe side)
    const scale = 10n ** BigInt(-share.expo);
    conf = (value * share.value + scale - 1n) / scale;
  }
  return { price: value, conf, expo, publishTimeMs: now, source: "fixed" };
};

/** The fixed-rate oracle of test mode: scripted rates, FX and depth; prices are always fresh. */
export const createFixedRateOracle = (
  rates: FixedRates = SANDBOX_RATES,
  now: () => number = Date.now,
): PriceOracle => ({
  usdPrice: async (coin) => {
    const rate = bySymbol(rates.usd, coin.symbol);
    return rate === undefined
      ? { ok: false, reason: "no_feed" }
      : { ok: true, price: fixedPrice(rate, rates.conf, now()) };
  },
  fxToUsd: async (currency) => {
    if (currency.toUpperCase() === "USD") return { ok: true, price: { ...ONE_USD, publishTimeMs: now() } };
    const rate = bySymbol(rates.fx, currency);
    return rate === undefined
      ? { ok: false, reason: "no_feed" }
      : { ok: true, price: fixedPrice(rate, rates.conf, now()) };
  },
  maxSize: (coin) => bySymbol(rates.depth, coin.symbol) ?? null,
});

/** Pyth price feed ids (Hermes), by our symbol. Coins without one have no price path in live mode. */
export const PYTH_FEEDS: Record<string, string> = {
  SUI: "0x23d7315113f5b1d3ba7a83604c44b94d79f4fd69af77f804fc7f920a6dc65744",
  USDC: "0xeaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a",
  USDT: "0x2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b",
};
/** Pyth FX feeds: USD per unit of the currency. */
export const PYTH_FX_FEEDS: Record<string, string> = {
  EUR: "0xa995d00bb36a63cef7fd2c287dc105fc8f3d93779f062f09551b0af3e81ec30b",
};

export type PythOptions = {
  endpoint?: string;
  apiKey?: string;
  feeds?: Record<string, string>;
  fxFeeds?: Record<string, string>;
  /** Maximum base units per payment, by symbol (v1 liquidity). */
  maxSize?: Record<string, bigint>;
  timeoutMs?: number;
  now?: () => number;
};

const oracleFailure = (reason: "timeout" | "unreachable" | "bad_response", detail: string, cause?: unknown) =>
  new AppError("payment_provider_error", `The price oracle (Pyth) failed: ${detail}`, {
    details: { provider: "pyth", reason },
    cause,
  });

type HermesPrice = { price?: unknown; conf?: unknown; expo?: unknown; publish_time?: unknown };

/** Pyth Hermes v2: GET /v2/updates/price/latest?ids[]=<feed>&parsed=true, bearer token when configured. */
export const createPythOracle = (options: PythOptions = {}): PriceOracle => {
  const endpoint = (options.endpoint ?? getEnv().PYTH_HERMES_URL).replace(/\/+$/, "");
  const apiKey = options.apiKey ?? getEnv().PYTH_API_KEY;
  const feeds = options.feeds ?? PYTH_FEEDS;
  const fxFeeds = options.fxFeeds ?? PYTH_FX_FEEDS;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const now = options.now ?? Date.now;

  const key = (feedId: string) => feedId.replace(/^0x/, "").toLowerCase();

  const parse = (p: HermesPrice | undefined): PriceResult => {
    if (
      !p ||
      typeof p.price !== "string" ||
      !/^\d+$/.test(p.price) ||
      typeof p.conf !== "string" ||
      !/^\d+$/.test(p.conf) ||
      typeof p.expo !== "number" ||
      !Number.isInteger(p.expo) ||
      Math.abs(p.expo) > 30 ||
      typeof p.publish_time !== "number" ||
      !Number.isInteger(p.publish_time)
    ) {
      throw oracleFailure("bad_response", "malformed price");
    }
    if (BigInt(p.price) <= 0n) throw oracleFailure("bad_response", "non-positive price");
    const publishTimeMs = p.publish_time * 1000;
    if (now() - publishTimeMs > MAX_PRICE_AGE_MS) return { ok: false, reason: "stale" };
    return {
      ok: true,
      price: { price: BigInt(p.price), conf: BigInt(p.conf), expo: p.expo, publishTimeMs, source: "pyth" },
    };
  };

  /** One Hermes request for several feeds; a feed missing from the answer has none. */
  const fetchLatest = async (feedIds: string[]): Promise<Map<string, PriceResult>> => {
    const query = feedIds.map((id) => `ids[]=${encodeURIComponent(id)}`).join("&");
    let body: unknown;
    try {
      const response = await fetch(`${endpoint}/v2/updates/price/latest?${query}&parsed=true`, {
        headers: { accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status === 404) {
        // Hermes answers 404 when it does not know a requested id
        await response.body?.cancel();
        return new Map(feedIds.map((id) => [key(id), { ok: false, reason: "no_feed" }]));
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw oracleFailure("unreachable", `HTTP ${response.status}`);
      }
      body = await response.json();
    } catch (error) {
      if (error instanceof AppError) throw error;
      const name = (error as { name?: unknown })?.name;
      if (name === "TimeoutError" || name === "AbortError")
        throw oracleFailure("timeout", `${timeoutMs} ms`, error);
      if (name === "SyntaxError") throw oracleFailure("bad_response", "not JSON", error);
      throw oracleFailure("unreachable", "network error", error);
    }
    const parsed = (body as { parsed?: unknown })?.parsed;
    const entries = Array.isArray(parsed) ? (parsed as { id?: unknown; price?: HermesPrice }[]) : [];
    return new Map(
      feedIds.map((id) => {
        const entry = entries.find((e) => typeof e.id === "string" && key(e.id) === key(id));
        return [key(id), entry ? parse(entry.price) : { ok: false, reason: "no_feed" }];
      }),
    );
  };

  // Prices asked for in the same tick (a quote asks for every accepted coin and the FX at once) share one request.
  type Waiter = { resolve: (result: PriceResult) => void; reject: (error: unknown) => void };
  let batch: Map<string, Waiter[]> | null = null;
  const latest = (feedId: string): Promise<PriceResult> =>
    new Promise<PriceResult>((resolve, reject) => {
      if (batch === null) {
        const current = new Map<string, Waiter[]>();
        batch = current;
        queueMicrotask(() => {
          batch = null;
          fetchLatest([...current.keys()]).then(
            (results) => {
              for (const [id, waiters] of current) for (const w of waiters) w.resolve(results.get(id)!);
            },
            (error: unknown) => {
              for (const waiters of current.values()) for (const w of waiters) w.reject(error);
            },
          );
        });
      }
      const waiters = batch.get(key(feedId)) ?? [];
      waiters.push({ resolve, reject });
      batch.set(key(feedId), waiters);
    });

  return {
    usdPrice: async (coin) => {
      const feed = bySymbol(feeds, coin.symbol);
      return feed === undefined ? { ok: false, reason: "no_feed" } : latest(feed);
    },
    fxToUsd: async (currency) => {
      if (currency.toUpperCase() === "USD") return { ok: true, price: { ...ONE_USD, publishTimeMs: now() } };
      const feed = bySymbol(fxFeeds, currency);
      return feed === undefined ? { ok: false, reason: "no_feed" } : latest(feed);
    },
    maxSize: (coin) => bySymbol(options.maxSize, coin.symbol) ?? null,
  };
};

/** The oracle of a store's mode (DECISIONS.md B4): test → fixed rates, live → Pyth Hermes. */
export const oracleForMode = (mode: "test" | "live"): PriceOracle =>
  mode === "test" ? createFixedRateOracle() : createPythOracle();
