import "server-only";

import type { Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { OperationContext } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { assertIntentCovers, readIntentMandate } from "@/lib/mandates/intent-mandate";
import { oracleForMode, type Price } from "@/lib/payments/crypto/oracle";

import type { priceCheckout } from "../price-checkout";

type Priced = Awaited<ReturnType<typeof priceCheckout>>;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

const minorExponent = (currency: string): number =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/**
 * `amount` minor units of `from` in minor units of `to`, through USD at the oracle's rates, rounded up (against
 * the buyer: an allowance is never stretched by rounding). Integer arithmetic only.
 */
const convertMinor = (amount: number, from: string, fromUsd: Price, to: string, toUsd: Price): number => {
  // amount × (fromUsd / 10^expFrom) / (toUsd / 10^expTo): numerators and denominators kept as integers
  const num = BigInt(amount) * fromUsd.price * pow10(Math.max(fromUsd.expo, 0)) * pow10(minorExponent(to));
  const fromDen = pow10(Math.max(-fromUsd.expo, 0)) * pow10(minorExponent(from));
  const den = fromDen * toUsd.price * pow10(Math.max(toUsd.expo, 0));
  const toDen = pow10(Math.max(-toUsd.expo, 0));
  const n = num * toDen;
  return Number((n + den - 1n) / den);
};

/**
 * Step 4 for svc.crypto: the buyer's intent mandate (DECISIONS B6) is signed by the checkout's buyer, for the
 * calling agent, not expired, allows this merchant and covers this order's total (converted into the allowance's
 * currency with the price oracle's FX rate when the store prices in another one).
 * @throws AppError mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   spend_cap_exceeded, identity_required, payment_provider_error (no FX rate)
 */
export const verifyIntentMandate = async (
  db: Db,
  ctx: OperationContext,
  store: Store,
  priced: Priced,
  encoded: string | undefined,
): Promise<void> => {
  if (ctx.principal.kind !== "buyer")
    throw new AppError("identity_required", "A crypto completion needs the buyer");
  const payload = await readIntentMandate(encoded, ctx.now);
  const buyer = await db.buyer.findUnique({
    where: { id: ctx.principal.buyerId },
    select: { suiAddress: true },
  });
  if (!buyer) throw new AppError("identity_required", "The bearer's buyer account no longer exists");
  const total = priced.totals.find((t) => t.type === "total")?.amount ?? 0;
  let amount = total;
  if (payload.currency !== store.currency.toUpperCase()) {
    const oracle = oracleForMode(store.mode === "live" ? "live" : "test");
    const [fromUsd, toUsd] = await Promise.all([
      oracle.fxToUsd(store.currency.toUpperCase()),
      oracle.fxToUsd(payload.currency),
    ]);
    if (!fromUsd.ok || !toUsd.ok) {
      throw new AppError(
        "payment_provider_error",
        `No usable ${store.currency}→${payload.currency} rate to check the allowance`,
        { details: { provider: "oracle" } },
      );
    }
    amount = convertMinor(total, store.currency.toUpperCase(), fromUsd.price, payload.currency, toUsd.price);
  }
  assertIntentCovers(payload, {
    buyerAddress: buyer.suiAddress,
    agent: ctx.principal.clientId,
    merchant: store.slug,
    amountInAllowanceCurrency: amount,
  });
};
