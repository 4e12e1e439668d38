import "server-only";

import { z } from "zod";

import { loadCheckoutOrThrow, peekBindableCheckoutOrThrow } from "@/lib/checkout/checkout-record";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation, type OperationContext } from "@/lib/core/operation";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";

// The buyer's side of service coupons (DECISIONS B16), on the buyer account surface (/account/mcp), so the
// buyer's agent opts in with the buyer's own bearer: list_my_coupons shows what the buyer holds;
// apply_coupon_to_checkout attaches one grant to one checkout, binding it to this buyer and agent (B17) like any
// buyer-bound call. The checkout's version moves with it, so a completion that read the checkout before the
// coupon was applied (or removed) holds nothing and reads it again: what is charged always matches the coupon the
// order redeems (lib/coupons/redeem.ts).

const buyerOf = (ctx: OperationContext) => {
  if (ctx.principal.kind !== "buyer") {
    throw new AppError(
      "identity_required",
      "Service coupons are the buyer's: send the buyer's bearer token ALONE (Authorization: Bearer)",
    );
  }
  return ctx.principal;
};

const CouponSchema = z
  .object({
    id: z.string().describe("the coupon as the buyer holds it: send as coupon_id"),
    description: z.string(),
    amount: z.number().int().describe("minor units of currency, taken off what the buyer pays"),
    currency: z.string(),
    expires_at: z.string(),
    status: z.enum(["available", "applied", "redeemed", "expired"]),
    applied_to: z
      .object({ store_slug: z.string(), checkout_id: z.string() })
      .nullable()
      .describe("the open checkout it is applied to"),
  })
  .loose();

export const listMyCoupons = defineOperation({
  name: "list_my_coupons",
  title: "List the buyer's service coupons",
  description:
    "The service coupons the buyer holds (funded by the service, not the merchant; separate from a store's discount codes): id (send as coupon_id to apply_coupon_to_checkout), description, amount off in minor units of currency, expiry, status (available | applied to an open checkout | redeemed | expired). Each coupon is used once, on one order; only apply one when the buyer asked for it.",
  errors: ["identity_required"],
  scope: "global",
  input: z.object({}).strict(),
  output: z.object({ coupons: z.array(CouponSchema) }).loose(),
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    flat: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx) => {
    const { buyerId } = buyerOf(ctx);
    const db = await getDb();
    const grants = await db.couponGrant.findMany({
      where: { buyerId },
      include: { coupon: true },
      orderBy: { createdAt: "desc" },
    });
    const held = await db.checkoutSession.findMany({
      where: { couponGrantId: { in: grants.map((g) => g.id) }, status: { not: "canceled" } },
      select: { id: true, couponGrantId: true, store: { select: { slug: true } } },
    });
    const coupons = grants.map((g) => {
      const checkout = held.find((c) => c.couponGrantId === g.id);
      const status = g.redeemedAt
        ? "redeemed"
        : checkout
          ? "applied"
          : g.coupon.expiresAt <= ctx.now
            ? "expired"
            : "available";
      return {
        id: g.id,
        description: g.coupon.description,
        amount: g.coupon.amountMinor,
        currency: g.coupon.currency,
        expires_at: g.coupon.expiresAt.toISOString(),
        status,
        applied_to:
          checkout && !g.redeemedAt ? { store_slug: checkout.store.slug, checkout_id: checkout.id } : null,
      } as const;
    });
    return { body: { coupons } };
  },
});

const ApplyInputSchema = z
  .object({
    store_slug: z.string().min(1).max(100),
    checkout_id: z.string().min(1).max(200),
    coupon_id: z
      .string()
      .min(1)
      .max(200)
      .nullable()
      .describe("a coupon from list_my_coupons; null takes the applied coupon off the checkout"),
  })
  .strict();

/** Statuses in which a coupon may be put on or taken off (not while a payment is in flight or done). */
const OPEN = ["incomplete", "ready_for_complete"] as const;

export const applyCouponToCheckout = defineOperation({
  name: "apply_coupon_to_checkout",
  title: "Apply a service coupon to a checkout",
  description:
    "The buyer's opt-in for one of their service coupons (list_my_coupons) on one open checkout, before complete_checkout (card) or prepare_checkout_payment / prepare_combined_payment (crypto): the buyer then pays the checkout's total minus the coupon (the order total is unchanged; the service pays the coupon part to the merchant). One coupon per checkout, each coupon on one checkout; coupon_id null takes it off. A crypto payment prepared before the coupon went on pays the whole total and leaves the coupon with the buyer. Binds the checkout to this buyer and agent.",
  errors: [
    "identity_required",
    "store_not_found",
    "not_found",
    "checkout_not_modifiable",
    "coupon_expired",
    "coupon_used",
    "coupon_currency_mismatch",
    "coupon_exceeds_total",
    "conflict",
  ],
  scope: "global",
  input: ApplyInputSchema,
  output: z
    .object({
      checkout_id: z.string(),
      store_slug: z.string(),
      currency: z.string(),
      total: z.number().int().describe("the checkout's total, minor units (unchanged by the coupon)"),
      coupon: z.object({ id: z.string(), amount: z.number().int() }).nullable(),
      amount_due: z.number().int().describe("what a card completion charges the buyer, minor units"),
    })
    .loose(),
  // the account surface carries no idempotency key (seed §4: no meta there); applying is naturally idempotent (it
  // sets which coupon the checkout holds), so a repeated call changes nothing more
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    flat: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx, input: z.infer<typeof ApplyInputSchema>) => {
    const { buyerId } = buyerOf(ctx);
    const db = await getDb();
    const store = await getStoreOrThrow(input.store_slug);
    const storeCtx = { ...ctx, store };
    // read without binding first: a refused coupon changes nothing, not even the checkout's binding (B17)
    const peeked = await peekBindableCheckoutOrThrow(db, storeCtx, input.checkout_id, "$.checkout_id");
    const checkOpen = (status: string) => {
      if (!(OPEN as readonly string[]).includes(status)) {
        throw new AppError(
          "checkout_not_modifiable",
          `Checkout ${peeked.session.id} is ${status}: a coupon is applied before the completion`,
          { path: "$.checkout_id" },
        );
      }
    };
    checkOpen(peeked.session.status);
    const totalOf = (totals: unknown) =>
      (totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount ?? 0;
    let coupon: { id: string; amount: number } | null = null;
    if (input.coupon_id !== null) {
      const grant = await db.couponGrant.findUnique({
        where: { id: input.coupon_id },
        include: { coupon: true },
      });
      // another buyer's coupon is indistinguishable from none
      if (!grant || grant.buyerId !== buyerId) {
        throw new AppError("not_found", `No coupon "${input.coupon_id}" held by this buyer`, {
          path: "$.coupon_id",
        });
      }
      if (grant.redeemedAt) {
        throw new AppError("coupon_used", `Coupon ${grant.id} was already redeemed`, { path: "$.coupon_id" });
      }
      if (grant.coupon.expiresAt <= ctx.now) {
        throw new AppError(
          "coupon_expired",
          `Coupon ${grant.id} expired at ${grant.coupon.expiresAt.toISOString()}`,
          { path: "$.coupon_id" },
        );
      }
      if (grant.coupon.currency !== peeked.session.currency) {
        throw new AppError(
          "coupon_currency_mismatch",
          `Coupon ${grant.id} is in ${grant.coupon.currency}, the checkout in ${peeked.session.currency}`,
          { path: "$.coupon_id" },
        );
      }
      coupon = { id: grant.id, amount: grant.coupon.amountMinor };
    }
    const exceeds = (total: number) => {
      if (coupon && coupon.amount >= total) {
        throw new AppError(
          "coupon_exceeds_total",
          `Coupon ${coupon.id} (${coupon.amount}) is not less than the checkout's total (${total}): a charge is never zero`,
          { path: "$.coupon_id" },
        );
      }
    };
    exceeds(totalOf(peeked.session.totals));
    const session = peeked.needsBinding
      ? await loadCheckoutOrThrow(db, storeCtx, input.checkout_id, { bindBuyer: true }).catch(
          (error: unknown) => {
            if (error instanceof AppError && error.code === "not_found") {
              throw new AppError("not_found", error.message, { path: "$.checkout_id" });
            }
            throw error;
          },
        )
      : peeked.session;
    checkOpen(session.status);
    const total = totalOf(session.totals);
    exceeds(total);
    if (coupon) {
      // a grant left on a canceled checkout goes back to the buyer
      await db.checkoutSession.updateMany({
        where: { couponGrantId: coupon.id, status: "canceled" },
        data: { couponGrantId: null },
      });
    }
    if (session.couponGrantId !== (coupon?.id ?? null)) {
      try {
        const { count } = await db.checkoutSession.updateMany({
          where: { id: session.id, version: session.version, status: { in: [...OPEN] } },
          data: { couponGrantId: coupon?.id ?? null, version: { increment: 1 } },
        });
        if (count !== 1) {
          throw new AppError("conflict", `Checkout ${session.id} changed meanwhile: apply the coupon again`);
        }
      } catch (error) {
        // the unique index: the grant is on another open checkout (two applies racing included)
        if ((error as { code?: string } | null)?.code === "P2002") {
          throw new AppError(
            "coupon_used",
            `Coupon ${coupon?.id} is applied to another open checkout: cancel that checkout or use another coupon`,
            { path: "$.coupon_id" },
          );
        }
        throw error;
      }
    }
    return {
      body: {
        checkout_id: session.id,
        store_slug: store.slug,
        currency: session.currency,
        total,
        coupon,
        amount_due: total - (coupon?.amount ?? 0),
      },
    };
  },
});
