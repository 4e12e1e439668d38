import "server-only";

import { Transaction, TransactionDataBuilder } from "@mysten/sui/transactions";
import { toBase64 } from "@mysten/sui/utils";

import { AppError } from "@/lib/core/errors";

import type { ChainCoin, ChainPort } from "./chain";
import { normalizeAddress, normalizeCoinType, SUI_TYPE } from "./coins";

// The payment transaction (SUI.md §3): one programmable transaction that pays 1..5 merchants, one leg per
// (merchant, coin type), built on the server with fully resolved inputs — object refs with versions and digests,
// gas price, budget and payment — so its bytes are final offline and their digest is known before the wallet signs
// (the digest is stored with the prepared payment: the fast path of verification). Per non-SUI coin type the
// chosen coins are merged into the first and split once into every amount of that type; SUI legs split from the
// gas coin (a coin is never both a gas coin and an input). The wallet may re-gas it; verification then falls back
// to the legs (verify-digest.ts).

export type PaymentLeg = { merchant: string; coinType: string; amount: bigint };

export type BuiltPayment = {
  /** TransactionData BCS, base64: what the wallet signs. */
  bytes: string;
  digest: string;
  sender: string;
  legs: PaymentLeg[];
  gasBudget: bigint;
  gasPrice: bigint;
};

/** The gas budget we set (MIST): far above a few transfers' cost, and what `auto` reserves from SUI first. */
export const GAS_BUDGET = 10_000_000n;
/** Merchants in one payment (seed §8: a combined payment covers 2 to 5 checkouts). */
export const MAX_MERCHANTS = 5;
/** Coin objects we merge per type at most (a wallet of dust pays from its largest coins or is refused). */
export const MAX_COINS_PER_TYPE = 200;

/** Largest coins first until `amount` is covered; null when every coin (up to the cap) is not enough. */
export const selectCoins = (coins: readonly ChainCoin[], amount: bigint): ChainCoin[] | null => {
  const sorted = [...coins].sort((a, b) => (a.balance === b.balance ? 0 : a.balance > b.balance ? -1 : 1));
  const chosen: ChainCoin[] = [];
  let total = 0n;
  for (const coin of sorted.slice(0, MAX_COINS_PER_TYPE)) {
    if (total >= amount && chosen.length > 0) break;
    chosen.push(coin);
    total += coin.balance;
  }
  return total >= amount && chosen.length > 0 ? chosen : null;
};

/** Checks and normalizes legs: 1..5 merchants, positive integer amounts, one leg per (merchant, coin). */
export const normalizeLegs = (legs: readonly PaymentLeg[]): PaymentLeg[] => {
  if (legs.length === 0) throw new AppError("invalid_request", "A payment needs at least one leg");
  const seen = new Set<string>();
  const out = legs.map((leg, index) => {
    const merchant = normalizeAddress(leg.merchant);
    const coinType = normalizeCoinType(leg.coinType);
    const path = `$.legs[${index}]`;
    if (merchant === null)
      throw new AppError("invalid_request", `Leg ${index}: invalid merchant address`, { path });
    if (coinType === null) throw new AppError("invalid_request", `Leg ${index}: invalid coin type`, { path });
    if (typeof leg.amount !== "bigint" || leg.amount <= 0n)
      throw new AppError("invalid_request", `Leg ${index}: the amount must be a positive integer`, { path });
    const key = `${merchant}|${coinType}`;
    if (seen.has(key))
      throw new AppError("invalid_request", `Leg ${index}: duplicate merchant and coin`, { path });
    seen.add(key);
    return { merchant, coinType, amount: leg.amount };
  });
  if (new Set(out.map((l) => l.merchant)).size > MAX_MERCHANTS)
    throw new AppError("invalid_request", `A payment pays at most ${MAX_MERCHANTS} merchants`);
  return out;
};

const refOf = (coin: ChainCoin) => ({ objectId: coin.objectId, version: coin.version, digest: coin.digest });

/**
 * Builds the transaction from coins already chosen (pure: no network).
 * @throws invalid_request — bad legs; insufficient_funds — the given coins do not cover the legs plus gas.
 */
export const buildPaymentTransaction = async (input: {
  sender: string;
  legs: readonly PaymentLeg[];
  /** SUI coins paying gas (and the SUI legs). */
  gasCoins: readonly ChainCoin[];
  /** Coins of each non-SUI type the legs use, keyed by normalized coin type. */
  coins: ReadonlyMap<string, readonly ChainCoin[]>;
  gasPrice: bigint;
  gasBudget?: bigint;
}): Promise<BuiltPayment> => {
  const sender = normalizeAddress(input.sender);
  if (sender === null)
    throw new AppError("invalid_request", "Invalid sender address", { path: "$.buyer_address" });
  const legs = normalizeLegs(input.legs);
  const gasBudget = input.gasBudget ?? GAS_BUDGET;
  if (input.gasCoins.length === 0)
    throw new AppError("insufficient_funds", "No SUI coin to pay the gas with");

  const suiLegs = legs.filter((l) => l.coinType === SUI_TYPE);
  const suiNeeded = suiLegs.reduce((sum, l) => sum + l.amount, 0n) + gasBudget;
  const gasTotal = input.gasCoins.reduce((sum, c) => sum + c.balance, 0n);
  if (gasTotal < suiNeeded)
    throw new AppError(
      "insufficient_funds",
      `SUI coins hold ${gasTotal} MIST, the payment and gas need ${suiNeeded}`,
    );

  const tx = new Transaction();
  tx.setSender(sender);
  tx.setGasPrice(input.gasPrice);
  tx.setGasBudget(gasBudget);
  tx.setGasPayment(input.gasCoins.map(refOf));

  const types = [...new Set(legs.map((l) => l.coinType))].filter((t) => t !== SUI_TYPE);
  for (const type of types) {
    const typeLegs = legs.filter((l) => l.coinType === type);
    const needed = typeLegs.reduce((sum, l) => sum + l.amount, 0n);
    const coins = input.coins.get(type) ?? [];
    const held = coins.reduce((sum, c) => sum + c.balance, 0n);
    if (coins.length === 0 || held < needed)
      throw new AppError("insufficient_funds", `Coins of ${type} hold ${held}, the payment needs ${needed}`);
    const [first, ...rest] = coins.map((c) => tx.objectRef(refOf(c)));
    if (rest.length > 0) tx.mergeCoins(first!, rest);
    const parts = tx.splitCoins(
      first!,
      typeLegs.map((l) => tx.pure.u64(l.amount)),
    );
    typeLegs.forEach((leg, i) => tx.transferObjects([parts[i]!], leg.merchant));
  }
  if (suiLegs.length > 0) {
    const parts = tx.splitCoins(
      tx.gas,
      suiLegs.map((l) => tx.pure.u64(l.amount)),
    );
    suiLegs.forEach((leg, i) => tx.transferObjects([parts[i]!], leg.merchant));
  }

  const bytes = await tx.build();
  return {
    bytes: toBase64(bytes),
    // the digest of the bytes just built (getDigest would prepare and serialize the transaction again)
    digest: TransactionDataBuilder.getDigestFromBytes(bytes),
    sender,
    legs,
    gasBudget,
    gasPrice: input.gasPrice,
  };
};

/**
 * Lists the buyer's coins on the chain, chooses them (largest first) and builds the payment.
 * @throws insufficient_funds — the coin objects the transaction can spend do not cover the legs plus gas;
 * payment_provider_error — the fullnode is down, slow or unreadable.
 */
export const buildPayment = async (
  chain: ChainPort,
  input: { sender: string; legs: readonly PaymentLeg[]; gasBudget?: bigint },
): Promise<BuiltPayment> => {
  const legs = normalizeLegs(input.legs);
  const sender = normalizeAddress(input.sender);
  if (sender === null)
    throw new AppError("invalid_request", "Invalid sender address", { path: "$.buyer_address" });
  const gasBudget = input.gasBudget ?? GAS_BUDGET;
  const needed = new Map<string, bigint>();
  for (const leg of legs) needed.set(leg.coinType, (needed.get(leg.coinType) ?? 0n) + leg.amount);

  const [gasPrice, suiCoins, ...others] = await Promise.all([
    chain.getReferenceGasPrice(),
    chain.listCoins(sender, SUI_TYPE),
    ...[...needed.keys()].filter((t) => t !== SUI_TYPE).map((t) => chain.listCoins(sender, t)),
  ]);
  const gasCoins = selectCoins(suiCoins, (needed.get(SUI_TYPE) ?? 0n) + gasBudget);
  if (!gasCoins)
    throw new AppError("insufficient_funds", "The wallet's SUI coins do not cover the payment and gas");
  const coins = new Map<string, ChainCoin[]>();
  [...needed.keys()]
    .filter((t) => t !== SUI_TYPE)
    .forEach((type, i) => {
      const chosen = selectCoins(others[i] ?? [], needed.get(type)!);
      if (!chosen)
        throw new AppError("insufficient_funds", `The wallet's coins of ${type} do not cover the payment`);
      coins.set(type, chosen);
    });
  return buildPaymentTransaction({ sender, legs, gasCoins, coins, gasPrice, gasBudget });
};
