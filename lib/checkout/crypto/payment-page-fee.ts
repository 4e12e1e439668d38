import "server-only";

import { normalizeStructTag } from "@mysten/sui/utils";

import { logger } from "@/lib/core/log";
import { settlementNetwork, SUI_TYPE } from "@/lib/payments/crypto/coins";
import { oracleForMode } from "@/lib/payments/crypto/oracle";
import { currencyExponent, unitsAtCurrentRate } from "@/lib/payments/crypto/quote";

// The network fee of a crypto payment in the store's currency, for the pay pages (a read: nothing is priced for a
// payment here). The fee is paid in SUI from the buyer's gas reserve, an upper bound of what the chain charges.
// When the quote itself pays with SUI, its rate is the one used (so the page is consistent with the quote);
// otherwise the store's oracle prices SUI now. Rounded up: the page never shows less than the fee may cost.

type Leg = { coinType: string; amount: string; fiatMinor: number };

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** The fiat value (minor units of `currency`) of `gasReserve` SUI base units, or null when SUI has no price now. */
export const networkFeeInFiat = async (
  store: { mode: "test" | "live"; suiNetwork: string },
  gasReserve: bigint,
  currency: string,
  legs: readonly Leg[],
): Promise<number | null> => {
  if (gasReserve <= 0n) return 0;
  const sui = legs.find((l) => normalizeStructTag(l.coinType) === SUI_TYPE && BigInt(l.amount) > 0n);
  if (sui) return Number(ceilDiv(gasReserve * BigInt(sui.fiatMinor), BigInt(sui.amount)));
  try {
    // the SUI units worth a round fiat amount (100 major units), priced as a quote prices it
    const reference = 100n * 10n ** BigInt(currencyExponent(currency.toUpperCase()));
    const units = await unitsAtCurrentRate(
      oracleForMode(store.mode),
      settlementNetwork(store),
      SUI_TYPE,
      reference,
      currency,
    );
    return units && units > 0n ? Number(ceilDiv(gasReserve * reference, units)) : null;
  } catch (error) {
    logger().warn(`pay page: no SUI price for the network fee: ${(error as Error).message}`);
    return null;
  }
};
