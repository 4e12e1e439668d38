import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import {
  coinTable,
  normalizeAddress,
  resolveAcceptedCoins,
  settlementNetwork,
  storedCoinSymbols,
  type CoinInfo,
  type SuiNetwork,
} from "@/lib/payments/crypto/coins";

import { getStoreOrThrow } from "./get-store-or-throw";

// A store's crypto rail settings (svc.crypto): enabled, the coins it accepts in its order of preference (our
// symbols, resolved through our coin table: never an on-chain symbol), the merchant's payout address, and the
// network a live store settles on. A test-mode store always settles on the sandbox chain (sandbox/sui), whatever
// its live network says, so a demo never touches a real chain. The store profile's sh.svc.crypto config is
// rendered from these settings only (store-profile.ts).

export type LiveSuiNetwork = Exclude<SuiNetwork, "sandbox">;
const LIVE_NETWORKS = ["mainnet", "testnet"] as const satisfies readonly LiveSuiNetwork[];

export type CryptoSettings = {
  enabled: boolean;
  /** Where this store's payments settle now: sandbox in test mode, else its live network. */
  network: SuiNetwork;
  liveNetwork: LiveSuiNetwork;
  /** Resolved on `network`, in the store's order. */
  acceptedCoins: CoinInfo[];
  /** Normalized Sui address (0x + 64 hex), or null when not set. */
  payoutAddress: string | null;
};

const liveNetworkOf = (store: Store): LiveSuiNetwork =>
  (LIVE_NETWORKS as readonly string[]).includes(store.suiNetwork)
    ? (store.suiNetwork as LiveSuiNetwork)
    : "mainnet";

/** The settings of a store as its rail and profile use them. */
export const cryptoSettingsOf = (store: Store): CryptoSettings => {
  const liveNetwork = liveNetworkOf(store);
  const network: SuiNetwork = settlementNetwork(store);
  const table = coinTable(network);
  // validated when set; a symbol the settling network lacks (a live network changed by hand) is left out, never
  // guessed
  const acceptedCoins = storedCoinSymbols(store.acceptedCoins).flatMap((symbol) => {
    const coin = table.find((c) => c.symbol.toUpperCase() === symbol.toUpperCase());
    return coin ? [coin] : [];
  });
  return {
    enabled: store.cryptoEnabled,
    network,
    liveNetwork,
    acceptedCoins,
    payoutAddress: store.suiRecipient ? normalizeAddress(store.suiRecipient) : null,
  };
};

/** What an operator (CLI) or merchant (admin) may change; omitted fields stay as they are. */
export const SetCryptoSettingsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  /** Symbols or full coin types, in order of preference (auto pays stablecoins first in this order). */
  accepted_coins: z
    .array(
      z
        .string()
        .min(1, "A coin cannot be empty")
        .max(200, "Use a coin symbol or type of at most 200 characters"),
    )
    .min(1, "Choose at least one coin")
    .max(10, "Choose at most 10 coins")
    .optional(),
  /** The merchant's Sui address; "" clears it (only while crypto is disabled). */
  payout_address: z.string().max(200).optional(),
  /** The network a live store settles on. */
  network: z.enum(LIVE_NETWORKS).optional(),
});
export type SetCryptoSettingsInput = z.infer<typeof SetCryptoSettingsSchema>;

/**
 * Changes a store's crypto settings. Coins must resolve on the live network (and on the sandbox, which a test-mode
 * store uses); enabling needs at least one coin and a payout address.
 * @throws AppError store_not_found, invalid_request, unsupported_coin
 */
export const setCryptoSettings = async (slug: string, raw: unknown): Promise<CryptoSettings> => {
  const parsed = SetCryptoSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, {
      path: `$${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`,
    });
  }
  const input = parsed.data;
  if (Object.keys(input).length === 0) {
    throw new AppError(
      "invalid_request",
      "Give at least one of enabled, accepted_coins, payout_address, network",
    );
  }
  const store = await getStoreOrThrow(slug);
  const liveNetwork = input.network ?? liveNetworkOf(store);
  const symbols =
    input.accepted_coins !== undefined
      ? resolveAcceptedCoins(liveNetwork, input.accepted_coins).map((c) => c.symbol)
      : storedCoinSymbols(store.acceptedCoins);
  // a changed network must still carry every accepted coin, and the sandbox must too (test mode settles there)
  for (const network of [liveNetwork, "sandbox"] as const) {
    const table = coinTable(network);
    const missing = symbols.filter((s) => !table.some((c) => c.symbol.toUpperCase() === s.toUpperCase()));
    if (missing.length > 0) {
      throw new AppError(
        "unsupported_coin",
        `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not available on ${network} (it has ${table.map((c) => c.symbol).join(", ")})`,
        { path: "$.accepted_coins" },
      );
    }
  }
  let payoutAddress = store.suiRecipient;
  if (input.payout_address !== undefined) {
    if (input.payout_address.trim() === "") payoutAddress = null;
    else {
      payoutAddress = normalizeAddress(input.payout_address);
      if (!payoutAddress) {
        throw new AppError(
          "invalid_request",
          "payout_address must be a Sui address: 0x followed by up to 64 hexadecimal digits",
          { path: "$.payout_address" },
        );
      }
    }
  }
  const enabled = input.enabled ?? store.cryptoEnabled;
  if (enabled && symbols.length === 0) {
    throw new AppError("invalid_request", "Crypto payments need at least one accepted coin", {
      path: "$.accepted_coins",
    });
  }
  if (enabled && !payoutAddress) {
    throw new AppError(
      "invalid_request",
      "Crypto payments need the merchant's payout address (payout_address)",
      { path: "$.payout_address" },
    );
  }
  const db = await getDb();
  const updated = await db.store.update({
    where: { id: store.id },
    data: {
      cryptoEnabled: enabled,
      acceptedCoins: symbols,
      suiRecipient: payoutAddress,
      suiNetwork: liveNetwork,
    },
  });
  return cryptoSettingsOf(updated);
};
