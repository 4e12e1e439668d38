import "server-only";

import type { Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

// The money side of service coupons (DECISIONS B16, docs/decisions.md "Service coupons"). A buyer's agent applies
// one of the buyer's coupon grants to a checkout (operations.ts); the card completion charges the live total minus
// the coupon (couponOffOrThrow), and the order's transaction redeems the grant and writes the merchant's payable
// (redeemCoupon). So for the buyer: charged = order total − coupon; for the merchant: rail receipts + payable =
// order total. A coupon is never worth the whole total: a charge is never zero or negative.

type Tx = Prisma.TransactionClient;

/**
 * What the applied coupon takes off a card charge of `total` (0 without one). Checked again on the live total
 * before anything is charged.
 * @throws AppError coupon_used (redeemed on another order meanwhile), coupon_exceeds_total (the total shrank
 *   below the coupon since it was applied)
 */
export const couponOffOrThrow = async (
  db: Db | Tx,
  session: { couponGrantId: string | null; currency: string },
  total: number,
): Promise<number> => {
  if (!session.couponGrantId) return 0;
  const grant = await db.couponGrant.findUnique({
    where: { id: session.couponGrantId },
    include: { coupon: true },
  });
  if (!grant || grant.coupon.currency !== session.currency) return 0;
  if (grant.redeemedAt) {
    throw new AppError("coupon_used", `Coupon ${grant.id} was already redeemed on another order`, {
      path: "$.coupon_id",
    });
  }
  if (grant.coupon.amountMinor >= total) {
    throw new AppError(
      "coupon_exceeds_total",
      `The coupon (${grant.coupon.amountMinor} minor units) is not less than the total (${total}): nothing was charged`,
      { path: "$.coupon_id" },
    );
  }
  return grant.coupon.amountMinor;
};

/**
 * In the order's transaction: marks the checkout's grant redeemed (once: the conditional update is the check) and
 * records the payable to the merchant. Returns the amount the service funded (0 without a coupon, or when the
 * rail is not the card: only card charges are discounted, see the caller).
 * @throws AppError coupon_used, coupon_exceeds_total (the transaction rolls back; the caller's finisher refunds
 *   the charge as it does for any order that cannot be placed)
 */
export const redeemCoupon = async (
  tx: Tx,
  input: {
    grantId: string;
    storeId: string;
    orderId: string;
    currency: string;
    total: number;
    now: Date;
  },
): Promise<number> => {
  const amount = await couponOffOrThrow(
    tx,
    { couponGrantId: input.grantId, currency: input.currency },
    input.total,
  );
  if (amount === 0) return 0;
  const { count } = await tx.couponGrant.updateMany({
    where: { id: input.grantId, redeemedAt: null },
    data: { redeemedAt: input.now },
  });
  if (count !== 1) {
    throw new AppError("coupon_used", `Coupon ${input.grantId} was already redeemed on another order`, {
      path: "$.coupon_id",
    });
  }
  await tx.couponPayable.create({
    data: {
      id: newId("couponPayable"),
      storeId: input.storeId,
      orderId: input.orderId,
      grantId: input.grantId,
      amountMinor: amount,
      currency: input.currency,
    },
  });
  return amount;
};
