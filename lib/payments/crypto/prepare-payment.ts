import "server-only";

import { AppError } from "@/lib/core/errors";

import { buildPayment, type BuiltPayment } from "./build-payment";
import type { ChainPort } from "./chain";
import { normalizeAddress } from "./coins";
import type { PriceOracle } from "./oracle";
import { legsForMerchant, QUOTE_WINDOW_MS, quotePayment, type Quote } from "./quote";
import type { ExpectedPayment } from "./verify-digest";

// One checkout's crypto payment, prepared (SUI.md §2–3): the quote (which coins pay how much), the fully resolved
// transaction paying the store's payout address, and the quote window. What a `payment-intent` stores and
// returns; `expected` is what completion later hands to verifyDigest.

export type PreparedPayment = {
  quote: Quote;
  transaction: BuiltPayment;
  preparedAtMs: number;
  expiresAtMs: number;
  /** The expected payment of verifyDigest for this prepare. */
  expected: ExpectedPayment;
};

/**
 * The chain port with each (owner, coin type) listed once: the quote counts the coins the transaction may spend and
 * the build then chooses among the same coins, so both see one listing (one fullnode call each instead of two).
 */
const listingOnce = (chain: ChainPort): ChainPort => {
  const listed = new Map<string, ReturnType<ChainPort["listCoins"]>>();
  return Object.assign(Object.create(chain) as ChainPort, {
    listCoins: (owner: string, coinType: string) => {
      const key = `${owner} ${coinType}`;
      let coins = listed.get(key);
      if (!coins) {
        coins = chain.listCoins(owner, coinType);
        listed.set(key, coins);
      }
      return coins;
    },
  });
};

/**
 * Quotes and builds one checkout's payment.
 * @throws invalid_request (addresses, total), unsupported_coin, insufficient_funds, insufficient_liquidity,
 * payment_provider_error (node or oracle down, slow or unreadable)
 */
export const preparePayment = async (
  deps: { chain: ChainPort; oracle: PriceOracle; now?: () => number },
  input: {
    buyer: string;
    merchant: string;
    acceptedCoins: readonly string[];
    requestedCoin?: string | null;
    totalMinor: bigint;
    currency: string;
    windowMs?: number;
    /** MIST reserved for gas (the transaction's gas budget); default GAS_BUDGET. */
    gasReserve?: bigint;
  },
): Promise<PreparedPayment> => {
  const buyer = normalizeAddress(input.buyer);
  if (buyer === null)
    throw new AppError("invalid_request", "buyer_address is not a Sui address", { path: "$.buyer_address" });
  const merchant = normalizeAddress(input.merchant);
  if (merchant === null)
    throw new AppError("invalid_request", "The store's payout address is not a Sui address");
  const preparedAtMs = (deps.now ?? Date.now)();
  const chain = listingOnce(deps.chain);
  const quote = await quotePayment(chain, deps.oracle, {
    buyer,
    acceptedCoins: input.acceptedCoins,
    requestedCoin: input.requestedCoin,
    totalMinor: input.totalMinor,
    currency: input.currency,
    ...(input.gasReserve === undefined ? {} : { gasReserve: input.gasReserve }),
  });
  const transaction = await buildPayment(chain, {
    sender: buyer,
    legs: legsForMerchant(quote, merchant),
    gasBudget: quote.gasReserve,
  });
  const expiresAtMs = preparedAtMs + (input.windowMs ?? QUOTE_WINDOW_MS);
  return {
    quote,
    transaction,
    preparedAtMs,
    expiresAtMs,
    expected: {
      buyer,
      legs: transaction.legs,
      preparedAtMs,
      expiresAtMs,
      preparedDigest: transaction.digest,
    },
  };
};
