import { isValidSuiAddress, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";

import { AppError } from "@/lib/core/errors";

// Our coin table (SUI.md §1): the only place a symbol becomes a coin type. Symbols resolve through this table
// only, case-insensitively — an on-chain symbol is never trusted (anyone can mint a coin whose metadata says
// "USDC"). Types are compared after normalizeStructTag, so `0x2::sui::SUI` and its 64-hex form are one coin.
//
// Networks: mainnet and testnet are Sui's; "sandbox" is the test-mode chain (sandbox/sui, a local fake fullnode).
// The sandbox uses the MAINNET types: the demo then shows the same coins a live store accepts, a store moves from
// test to live mode without touching its accepted_coins, and the lookalike rules below are exercised on the real
// types. Nothing can confuse the two chains: the sandbox is a separate URL chosen by the store's mode.

export type SuiNetwork = "mainnet" | "testnet" | "sandbox";
export const SUI_NETWORKS: readonly SuiNetwork[] = ["mainnet", "testnet", "sandbox"];

/**
 * Where a store's crypto payments settle: a test-mode store always on the sandbox (a demo never touches a real
 * chain), a live one on its configured network (mainnet when the stored value is not a live network).
 */
export const settlementNetwork = (store: { mode: string; suiNetwork: string }): SuiNetwork => {
  if (store.mode !== "live") return "sandbox";
  return store.suiNetwork === "testnet" ? "testnet" : "mainnet";
};

export type CoinInfo = {
  /** Our symbol, upper-case as we display it (suiUSDe keeps its own casing). */
  symbol: string;
  /** Full normalized struct tag (64-hex address). */
  coinType: string;
  decimals: number;
  /** `stable`: a USD stablecoin (paid before SUI in `auto`, peg-checked); `native`: SUI, which also pays gas. */
  kind: "stable" | "native";
};

export const SUI_TYPE = normalizeStructTag("0x2::sui::SUI");

const coin = (symbol: string, type: string, decimals: number, kind: CoinInfo["kind"]): CoinInfo => ({
  symbol,
  coinType: normalizeStructTag(type),
  decimals,
  kind,
});

const SUI = coin("SUI", "0x2::sui::SUI", 9, "native");
const MAINNET: readonly CoinInfo[] = [
  SUI,
  coin("USDC", "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC", 6, "stable"),
  coin("USDT", "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT", 6, "stable"),
  coin("AUSD", "0x2053d08c1e2bd02791056171aab0fd12bd7cd7efad2ab8f6b9c8902f14df2ff2::ausd::AUSD", 6, "stable"),
  coin(
    "suiUSDe",
    "0x41d587e5336f1c86cad50d38a7136db99333bb9bda91cea4ba69115defeb1402::sui_usde::SUI_USDE",
    6,
    "stable",
  ),
  coin(
    "USDsui",
    "0x44f838219cf67b058f3b37907b655f226153c18e33dfcd0da559a844fea9b1c1::usdsui::USDSUI",
    6,
    "stable",
  ),
];
// Testnet has Circle's USDC and SUI only (no real USDT/AUSD/suiUSDe there).
const TESTNET: readonly CoinInfo[] = [
  SUI,
  coin("USDC", "0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC", 6, "stable"),
];

const TABLES: Record<SuiNetwork, readonly CoinInfo[]> = {
  mainnet: MAINNET,
  testnet: TESTNET,
  sandbox: MAINNET,
};

/**
 * Wormhole-bridged "wUSDC"/"wUSDT" on mainnet: different assets from Circle's USDC and the bridged USDT of our
 * table, whatever their metadata says. Named so a refusal can say why.
 */
export const LOOKALIKE_COINS: Readonly<Record<string, string>> = {
  [normalizeStructTag("0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN")]:
    "Wormhole wUSDC (not Circle USDC)",
  [normalizeStructTag("0xc060006111016b8a020ad5b33834984a437aaa7d3c74c18e09a95d48aceab08c::coin::COIN")]:
    "Wormhole wUSDT (not USDT)",
};

/** The coins we know on a network, in table order. */
export const coinTable = (network: SuiNetwork): readonly CoinInfo[] => TABLES[network];

/** A coin type normalized, or null when it is not a valid struct tag. */
export const normalizeCoinType = (type: string): string | null => {
  try {
    return normalizeStructTag(type.trim());
  } catch {
    return null;
  }
};

/** Whether two coin types are the same coin (normalized comparison; an invalid type equals nothing). */
export const isSameCoinType = (a: string, b: string): boolean => {
  const left = normalizeCoinType(a);
  return left !== null && left === normalizeCoinType(b);
};

/** Our entry for a coin type on a network, or undefined (unknown types and lookalikes). */
export const findCoinByType = (network: SuiNetwork, type: string): CoinInfo | undefined => {
  const normalized = normalizeCoinType(type);
  return normalized === null ? undefined : TABLES[network].find((c) => c.coinType === normalized);
};

/**
 * Resolves a symbol (any case) or a full coin type through our table.
 * @throws unsupported_coin — unknown symbol, unknown or malformed type, a lookalike.
 */
export const resolveCoinOrThrow = (network: SuiNetwork, symbolOrType: string, path?: string): CoinInfo => {
  const wanted = symbolOrType.trim();
  if (wanted.includes("::")) {
    const normalized = normalizeCoinType(wanted);
    const found = normalized === null ? undefined : TABLES[network].find((c) => c.coinType === normalized);
    if (found) return found;
    const lookalike = normalized === null ? undefined : LOOKALIKE_COINS[normalized];
    throw new AppError(
      "unsupported_coin",
      lookalike
        ? `${wanted} is ${lookalike}: only the coins of our table are accepted`
        : `Unknown coin type ${wanted} on ${network}`,
      { path },
    );
  }
  const upper = wanted.toUpperCase();
  const found = TABLES[network].find((c) => c.symbol.toUpperCase() === upper);
  if (!found)
    throw new AppError("unsupported_coin", `Unknown coin symbol "${wanted}" on ${network}`, { path });
  return found;
};

/**
 * A store's accepted_coins (symbols or types) resolved in the store's order, duplicates dropped.
 * @throws unsupported_coin — an entry our table does not know on that network.
 */
export const resolveAcceptedCoins = (network: SuiNetwork, accepted: readonly string[]): CoinInfo[] => {
  const out: CoinInfo[] = [];
  accepted.forEach((entry, index) => {
    const found = resolveCoinOrThrow(network, entry, `$.accepted_coins[${index}]`);
    if (!out.some((c) => c.coinType === found.coinType)) out.push(found);
  });
  return out;
};

/**
 * The coin the buyer named (`input_coin_type`: symbol or full type), which must be one the store accepts.
 * @throws unsupported_coin — unknown, lookalike, or not in the store's accepted coins.
 */
export const resolveRequestedCoinOrThrow = (
  network: SuiNetwork,
  accepted: readonly CoinInfo[],
  requested: string,
): CoinInfo => {
  const found = resolveCoinOrThrow(network, requested, "$.input_coin_type");
  if (!accepted.some((c) => c.coinType === found.coinType)) {
    throw new AppError(
      "unsupported_coin",
      `${found.symbol} is not accepted by this store (accepted: ${accepted.map((c) => c.symbol).join(", ")})`,
      { path: "$.input_coin_type" },
    );
  }
  return found;
};

/** A Sui address normalized (0x + 64 hex), or null when invalid. */
export const normalizeAddress = (address: string): string | null => {
  const trimmed = address.trim();
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(trimmed)) return null;
  const normalized = normalizeSuiAddress(trimmed);
  return isValidSuiAddress(normalized) ? normalized : null;
};

/** Base units as a decimal string, with string arithmetic only (never floats): "12340000", 6 → "12.34". */
export const formatUnits = (amount: string, decimals: number): string => {
  if (!/^\d+$/.test(amount)) return amount;
  const padded = amount.replace(/^0+(?=\d)/, "").padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
};

/** The stored accepted coins: our symbols (older rows held {symbol, coin_type, decimals} objects). */
export const storedCoinSymbols = (stored: unknown): string[] =>
  Array.isArray(stored)
    ? stored.flatMap((entry) =>
        typeof entry === "string"
          ? [entry]
          : typeof entry === "object" &&
              entry !== null &&
              typeof (entry as { symbol?: unknown }).symbol === "string"
            ? [(entry as { symbol: string }).symbol]
            : [],
      )
    : [];
