import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";

// The operator's side of service coupons (DECISIONS B16): issue a coupon to buyer accounts, list coupons and the
// payables owed to merchants. The admin CLI calls these; the operator's page calls them through lib/coupons/operator.ts,
// which checks the operator role and reads the form's major units.

const MAX_MINOR = 2_147_483_647;
const KNOWN_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

export const IssueCouponInputSchema = z
  .object({
    description: z.string().trim().min(1).max(200),
    /** Minor units of `currency` (1250 = 12.50 USD). */
    amount_minor: z.number().int().min(1).max(MAX_MINOR),
    currency: z
      .string()
      .transform((c) => c.trim().toUpperCase())
      .refine((c) => /^[A-Z]{3}$/.test(c) && KNOWN_CURRENCIES.has(c), "an ISO 4217 code such as USD"),
    expires_at: z.coerce.date(),
    /** The buyers' Sui wallet addresses (each has signed in once): each gets one single-use grant. */
    buyer_addresses: z
      .array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a 0x… Sui address of 64 hex digits"))
      .min(1)
      .max(1000),
  })
  .strict();
export type IssueCouponInput = z.input<typeof IssueCouponInputSchema>;

/**
 * Issues one coupon and grants it once to each named buyer.
 * @throws AppError invalid_request (bad input, an expiry in the past, an address with no buyer account)
 */
export const issueCoupon = async (raw: IssueCouponInput, now = new Date()) => {
  const parsed = IssueCouponInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", `${issue.path.join(".") || "input"}: ${issue.message}`, {
      path: `$.${issue.path.join(".")}`,
    });
  }
  const input = parsed.data;
  if (input.expires_at <= now) {
    throw new AppError("invalid_request", "expires_at must be in the future", { path: "$.expires_at" });
  }
  const db = await getDb();
  const addresses = [...new Set(input.buyer_addresses.map((a) => a.toLowerCase()))];
  const buyers = await db.buyer.findMany({ where: { suiAddress: { in: addresses } } });
  const missing = addresses.filter((a) => !buyers.some((b) => b.suiAddress === a));
  if (missing.length > 0) {
    throw new AppError(
      "invalid_request",
      `No buyer account for ${missing.join(", ")} (the buyer signs in once first)`,
      { path: "$.buyer_addresses" },
    );
  }
  const couponId = newId("coupon");
  return db.$transaction(async (tx) => {
    const coupon = await tx.serviceCoupon.create({
      data: {
        id: couponId,
        description: input.description,
        amountMinor: input.amount_minor,
        currency: input.currency,
        expiresAt: input.expires_at,
        createdAt: now,
      },
    });
    const grants = buyers.map((b) => ({ id: newId("couponGrant"), couponId, buyerId: b.id, createdAt: now }));
    await tx.couponGrant.createMany({ data: grants });
    return {
      coupon,
      grants: grants.map((g) => ({
        id: g.id,
        buyer_address: buyers.find((b) => b.id === g.buyerId)!.suiAddress,
      })),
    };
  });
};

/** Every coupon with how many grants it has and how many were redeemed, newest first. */
export const listCoupons = async () => {
  const db = await getDb();
  const coupons = await db.serviceCoupon.findMany({
    orderBy: { createdAt: "desc" },
    include: { grants: { select: { redeemedAt: true } } },
  });
  return coupons.map((c) => ({
    id: c.id,
    description: c.description,
    amount_minor: c.amountMinor,
    currency: c.currency,
    expires_at: c.expiresAt.toISOString(),
    granted: c.grants.length,
    redeemed: c.grants.filter((g) => g.redeemedAt).length,
  }));
};

/** What the service owes merchants for redeemed coupons (optionally one store's), newest first. */
export const listCouponPayables = async (filter: { storeId?: string; status?: string } = {}) => {
  const db = await getDb();
  const rows = await db.couponPayable.findMany({
    where: {
      ...(filter.storeId ? { storeId: filter.storeId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
    },
    orderBy: { createdAt: "desc" },
  });
  return rows.map((p) => ({
    id: p.id,
    store_id: p.storeId,
    order_id: p.orderId,
    grant_id: p.grantId,
    amount_minor: p.amountMinor,
    currency: p.currency,
    status: p.status,
    settled_at: p.settledAt?.toISOString() ?? null,
    created_at: p.createdAt.toISOString(),
  }));
};
