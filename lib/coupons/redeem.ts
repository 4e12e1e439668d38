import "server-only";

import type { SqlQueryable } from "@prisma/driver-adapter-utils";

import type { Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { queryWith, sql } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

// The money side of service coupons (DECISIONS B16, docs/decisions.md "Service coupons"). A buyer's agent applies
// one of the buyer's coupon grants to a checkout (operations.ts); the card completion charges, and a crypto prepare
// quotes, the live total minus the coupon (couponOffOrThrow), and the order's transaction redeems the grant and
// writes the merchant's payable (redeemCoupon). So for the buyer: paid = order total − coupon; for the merchant: rail
// receipts + payable = order total. A coupon is never worth the whole total: a payment is never zero or negative.

type Tx = Prisma.TransactionClient;

/** A grant as the checks below read it: when it was redeemed, and its coupon's face value and currency. */
type GrantFace = { redeemedAt: Date | null; amountMinor: number; currency: string };

/** couponOffOrThrow's checks on a grant already read (null: no such grant). */
const couponOffOf = (grant: GrantFace | null, grantId: string, currency: string, total: number): number => {
  if (!grant || grant.currency !== currency) return 0;
  if (grant.redeemedAt) {
    throw new AppError("coupon_used", `Coupon ${grantId} was already redeemed on another order`, {
      path: "$.coupon_id",
    });
  }
  if (grant.amountMinor >= total) {
    throw new AppError(
      "coupon_exceeds_total",
      `The coupon (${grant.amountMinor} minor units) is not less than the total (${total}): nothing was charged`,
      { path: "$.coupon_id" },
    );
  }
  return grant.amountMinor;
};

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
  return couponOffOf(
    grant && {
      redeemedAt: grant.redeemedAt,
      amountMinor: grant.coupon.amountMinor,
      currency: grant.coupon.currency,
    },
    session.couponGrantId,
    session.currency,
    total,
  );
};

/**
 * The face value of the coupon a checkout holds (0 without a usable one), never throwing: what a landed crypto
 * payment may be short of the live total and still pay for the order (the payable covers the rest).
 */
export const couponFaceOf = async (db: Db | Tx, checkoutId: string): Promise<number> => {
  const checkout = await db.checkoutSession.findUnique({
    where: { id: checkoutId },
    select: { couponGrantId: true, currency: true },
  });
  if (!checkout?.couponGrantId) return 0;
  const grant = await db.couponGrant.findUnique({
    where: { id: checkout.couponGrantId },
    include: { coupon: true },
  });
  return grant && !grant.redeemedAt && grant.coupon.currency === checkout.currency
    ? grant.coupon.amountMinor
    : 0;
};

/**
 * In the order's transaction (on the driver adapter: lib/orders/place-order.ts): marks the checkout's grant
 * redeemed (once: the conditional update is the check) and records the payable to the merchant. Returns the amount
 * the service funded (0 without a coupon).
 * @throws AppError coupon_used, coupon_exceeds_total (the transaction rolls back; the caller's finisher refunds
 *   the charge as it does for any order that cannot be placed)
 */
export const redeemCoupon = async (
  tx: SqlQueryable,
  input: {
    grantId: string;
    storeId: string;
    orderId: string;
    currency: string;
    total: number;
    /** Crypto: what the prepared payment paid; the payable is the rest of the total (at most the coupon). */
    paid?: number;
    now: Date;
  },
): Promise<number> => {
  const [grant] = await queryWith<GrantFace>(
    tx,
    sql`SELECT g.redeemed_at AS "redeemedAt", c.amount_minor AS "amountMinor", c.currency
        FROM coupon_grants g JOIN service_coupons c ON c.id = g.coupon_id
        WHERE g.id = ${input.grantId}`,
  );
  const face = couponOffOf(grant ?? null, input.grantId, input.currency, input.total);
  const amount = input.paid === undefined ? face : Math.min(face, Math.max(0, input.total - input.paid));
  if (amount === 0) return 0;
  const count = await tx.executeRaw(
    sql`UPDATE coupon_grants SET redeemed_at = ${input.now} WHERE id = ${input.grantId} AND redeemed_at IS NULL`,
  );
  if (count !== 1) {
    throw new AppError("coupon_used", `Coupon ${input.grantId} was already redeemed on another order`, {
      path: "$.coupon_id",
    });
  }
  await tx.executeRaw(
    sql`INSERT INTO coupon_payables (id, store_id, order_id, grant_id, amount_minor, currency, status, created_at)
        VALUES (${newId("couponPayable")}, ${input.storeId}, ${input.orderId}, ${input.grantId}, ${amount},
                ${input.currency}, 'open', ${new Date()})`,
  );
  return amount;
};
