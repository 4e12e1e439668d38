import "server-only";

import { AppError } from "@/lib/core/errors";
import { oracleForMode, type Price } from "@/lib/payments/crypto/oracle";

// Amounts in an allowance's currency (DECISIONS B6): a store that prices in another currency is converted through
// USD at the price oracle's FX rate at the moment of the reservation, rounded UP (against the buyer: an allowance
// is never stretched by rounding). Integer arithmetic only. Credits go the other way and round down.

const pow10 = (n: number): bigint => 10n ** BigInt(n);

export const minorExponent = (currency: string): number =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** `amount` minor units of `from` in minor units of `to`, through USD at the given rates, rounded up. */
export const convertMinor = (
  amount: number,
  from: string,
  fromUsd: Price,
  to: string,
  toUsd: Price,
): number => {
  // amount × (fromUsd / 10^expFrom) / (toUsd / 10^expTo): numerators and denominators kept as integers
  const num = BigInt(amount) * fromUsd.price * pow10(Math.max(fromUsd.expo, 0)) * pow10(minorExponent(to));
  const fromDen = pow10(Math.max(-fromUsd.expo, 0)) * pow10(minorExponent(from));
  const den = fromDen * toUsd.price * pow10(Math.max(toUsd.expo, 0));
  const toDen = pow10(Math.max(-toUsd.expo, 0));
  const n = num * toDen;
  return Number((n + den - 1n) / den);
};

/**
 * A store amount in the allowance's currency, at the oracle's rate now (the store's mode picks the oracle).
 * @throws AppError payment_provider_error (no usable FX rate)
 */
export const toAllowanceCurrency = async (input: {
  amount: number;
  currency: string;
  allowanceCurrency: string;
  mode: "test" | "live";
}): Promise<number> => {
  const from = input.currency.toUpperCase();
  const to = input.allowanceCurrency.toUpperCase();
  if (from === to) return input.amount;
  const oracle = oracleForMode(input.mode);
  const [fromUsd, toUsd] = await Promise.all([oracle.fxToUsd(from), oracle.fxToUsd(to)]);
  if (!fromUsd.ok || !toUsd.ok) {
    throw new AppError("payment_provider_error", `No usable ${from}→${to} rate to check the allowance`, {
      details: { provider: "oracle" },
    });
  }
  return convertMinor(input.amount, from, fromUsd.price, to, toUsd.price);
};

/** `part` of an amount converted at a recorded reservation's rate (`amount` for `origin`), rounded as asked. */
export const atRecordedRate = (
  part: number,
  rate: { amount: number; originAmount: number },
  round: "up" | "down",
): number => {
  if (rate.originAmount <= 0) return 0;
  if (part === rate.originAmount) return rate.amount;
  const n = BigInt(part) * BigInt(rate.amount);
  const d = BigInt(rate.originAmount);
  return Number(round === "up" ? (n + d - 1n) / d : n / d);
};
