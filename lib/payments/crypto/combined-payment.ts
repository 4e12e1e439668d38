import "server-only";

import { createHash } from "node:crypto";

import { AppError } from "@/lib/core/errors";

import { buildPayment, GAS_BUDGET, MAX_COINS_PER_TYPE, type BuiltPayment } from "./build-payment";
import type { ChainPort } from "./chain";
import {
  normalizeAddress,
  resolveAcceptedCoins,
  resolveCoinOrThrow,
  SUI_TYPE,
  type CoinInfo,
  type SuiNetwork,
} from "./coins";
import type { PriceOracle, PriceResult } from "./oracle";
import { computeQuote, legsForMerchant, QUOTE_WINDOW_MS, type Holding, type Quote } from "./quote";

// A combined payment (SUI.md §3: the same builder with legs for 2–5 merchants): one transaction paying every
// checkout of the group, one leg per (merchant, coin). How coins are chosen across stores:
// - the coins a combined payment may use are those EVERY store accepts (a leg pays one merchant, so its coin must
//   be accepted there), in the first checkout's store order; none in common → unsupported_coin;
// - `auto` funds the checkouts one after another, in the order asked, each exactly as a single prepare would
//   (stablecoins first, then SUI, at most 3 coins per checkout) from what the earlier checkouts left in the
//   wallet; the gas budget is reserved once, for the whole transaction, before SUI pays anything;
// - a named coin pays every checkout alone and must be accepted by every store.
// Every checkout keeps its own quote (its legs, fiat values and rates), which is what its completion is judged
// against; the whole transaction's quote sums the legs per coin.

export type CombinedCheckout = {
  /** The store's payout address. */
  merchant: string;
  acceptedCoins: readonly string[];
  totalMinor: bigint;
  currency: string;
};

export type CombinedPayment = {
  quotes: Quote[];
  transaction: BuiltPayment;
  preparedAtMs: number;
  expiresAtMs: number;
};

/** The coins every store accepts, in the first store's order. @throws unsupported_coin */
export const commonCoinsOrThrow = (
  network: SuiNetwork,
  checkouts: readonly Pick<CombinedCheckout, "acceptedCoins">[],
): CoinInfo[] => {
  const each = checkouts.map((c) => resolveAcceptedCoins(network, c.acceptedCoins));
  const common = (each[0] ?? []).filter((coin) =>
    each.every((coins) => coins.some((c) => c.coinType === coin.coinType)),
  );
  if (common.length === 0) {
    throw new AppError(
      "unsupported_coin",
      "The stores of these checkouts accept no coin in common: pay them separately (prepare_checkout_payment)",
      { path: "$.checkouts" },
    );
  }
  return common;
};

/**
 * The gas budget of a combined transaction: GAS_BUDGET plus up to 0.001 SUI derived from the group id, so two
 * groups of the same buyer and amounts never build byte-identical transactions (one digest for two groups).
 */
export const combinedGasBudget = (groupId: string): bigint =>
  GAS_BUDGET + BigInt(createHash("sha256").update(groupId).digest().readUInt32BE(0) % 1_000_000);

/**
 * Quotes every checkout of a combined payment from one read of the wallet and prices (pure).
 * @throws unsupported_coin, insufficient_funds, insufficient_liquidity, payment_provider_error
 */
export const computeCombinedQuotes = (input: {
  network: SuiNetwork;
  checkouts: readonly CombinedCheckout[];
  requestedCoin?: string | null;
  holdings: ReadonlyMap<string, Holding>;
  prices: ReadonlyMap<string, PriceResult>;
  fx: ReadonlyMap<string, PriceResult>;
  maxSize: (coin: CoinInfo) => bigint | null;
  gasBudget: bigint;
}): Quote[] => {
  const common = commonCoinsOrThrow(input.network, input.checkouts);
  const named =
    input.requestedCoin && input.requestedCoin.trim().toLowerCase() !== "auto"
      ? resolveCoinOrThrow(input.network, input.requestedCoin, "$.input_coin_type")
      : null;
  if (named && !common.some((c) => c.coinType === named.coinType)) {
    throw new AppError(
      "unsupported_coin",
      `${named.symbol} is not accepted by every store of these checkouts (accepted by all: ${common.map((c) => c.symbol).join(", ")})`,
      { path: "$.input_coin_type" },
    );
  }
  const holdings = new Map(input.holdings);
  const sui = holdings.get(SUI_TYPE) ?? { coinBalance: 0n, addressBalance: 0n };
  if (sui.coinBalance < input.gasBudget) {
    throw new AppError(
      "insufficient_funds",
      `The wallet needs ${input.gasBudget} MIST of SUI in coin objects for gas (it has ${sui.coinBalance})`,
      {
        details: { gas_reserve: input.gasBudget.toString(), sui_spendable: sui.coinBalance.toString() },
      },
    );
  }
  // gas is reserved once for the whole transaction; each checkout's quote then reserves nothing more
  holdings.set(SUI_TYPE, { ...sui, coinBalance: sui.coinBalance - input.gasBudget });
  const accepted = common.map((c) => c.coinType);
  return input.checkouts.map((checkout, index) => {
    let quote: Quote;
    try {
      quote = computeQuote({
        network: input.network,
        acceptedCoins: accepted,
        requestedCoin: named?.coinType ?? null,
        totalMinor: checkout.totalMinor,
        currency: checkout.currency,
        holdings,
        prices: input.prices,
        fx: input.fx.get(checkout.currency.toUpperCase()) ?? { ok: false, reason: "no_feed" },
        maxSize: input.maxSize,
        gasReserve: 0n,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === "insufficient_funds") {
        throw new AppError(
          "insufficient_funds",
          `The wallet cannot pay checkout ${index + 1} of ${input.checkouts.length} after the ones before it: ${error.message}`,
          { path: `$.checkouts[${index}]`, details: error.details },
        );
      }
      throw error;
    }
    for (const leg of quote.legs) {
      const held = holdings.get(leg.coinType) ?? { coinBalance: 0n, addressBalance: 0n };
      holdings.set(leg.coinType, { ...held, coinBalance: held.coinBalance - leg.amount });
    }
    return { ...quote, gasReserve: input.gasBudget };
  });
};

/**
 * Reads the wallet and the prices once, quotes every checkout and builds the one transaction paying them all.
 * @throws invalid_request (addresses; two stores with one payout address), unsupported_coin, insufficient_funds,
 *   insufficient_liquidity, payment_provider_error
 */
export const prepareCombinedTransaction = async (
  deps: { chain: ChainPort; oracle: PriceOracle; now?: () => number },
  input: {
    buyer: string;
    checkouts: readonly CombinedCheckout[];
    requestedCoin?: string | null;
    gasBudget: bigint;
    windowMs?: number;
  },
): Promise<CombinedPayment> => {
  const buyer = normalizeAddress(input.buyer);
  if (buyer === null)
    throw new AppError("invalid_request", "buyer_address is not a Sui address", { path: "$.buyer_address" });
  const merchants = input.checkouts.map((c, index) => {
    const merchant = normalizeAddress(c.merchant);
    if (merchant === null)
      throw new AppError("invalid_request", "A store's payout address is not a Sui address", {
        path: `$.checkouts[${index}].store_slug`,
      });
    return merchant;
  });
  // verification counts what reached a merchant address: two checkouts paying one address could not be told apart
  const shared = merchants.findIndex((m, i) => merchants.indexOf(m) !== i);
  if (shared >= 0) {
    throw new AppError(
      "invalid_request",
      "Two of these stores share one payout address: pay them separately (prepare_checkout_payment)",
      { path: `$.checkouts[${shared}].store_slug` },
    );
  }
  const common = commonCoinsOrThrow(deps.chain.network, input.checkouts);
  const types = [...new Set([...common.map((c) => c.coinType), SUI_TYPE])];
  const currencies = [...new Set(input.checkouts.map((c) => c.currency.toUpperCase()))];
  const preparedAtMs = (deps.now ?? Date.now)();
  const [spendables, balances, prices, fx] = await Promise.all([
    Promise.all(
      types.map(async (type) =>
        (await deps.chain.listCoins(buyer, type))
          .slice(0, MAX_COINS_PER_TYPE)
          .reduce((sum, c) => sum + c.balance, 0n),
      ),
    ),
    Promise.all(types.map((type) => deps.chain.getBalance(buyer, type))),
    Promise.all(common.map((c) => deps.oracle.usdPrice(c))),
    Promise.all(currencies.map((c) => deps.oracle.fxToUsd(c))),
  ]);
  const quotes = computeCombinedQuotes({
    network: deps.chain.network,
    checkouts: input.checkouts,
    requestedCoin: input.requestedCoin,
    holdings: new Map(
      types.map((type, i) => [
        type,
        { coinBalance: spendables[i]!, addressBalance: balances[i]!.addressBalance },
      ]),
    ),
    prices: new Map(common.map((c, i) => [c.coinType, prices[i]!])),
    fx: new Map(currencies.map((c, i) => [c, fx[i]!])),
    maxSize: deps.oracle.maxSize,
    gasBudget: input.gasBudget,
  });
  const transaction = await buildPayment(deps.chain, {
    sender: buyer,
    legs: quotes.flatMap((quote, i) => legsForMerchant(quote, merchants[i]!)),
    gasBudget: input.gasBudget,
  });
  return {
    quotes,
    transaction,
    preparedAtMs,
    expiresAtMs: preparedAtMs + (input.windowMs ?? QUOTE_WINDOW_MS),
  };
};
