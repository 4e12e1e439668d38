import { z } from "zod";

import { buyerCredentials, type BridgeContext } from "./context";
import { requireBearer } from "./crypto";
import { businessError, toToolError, type ToolError } from "./errors";
import { BridgeInputError, formatMoney } from "./money";

// apply_coupon on confirm_purchase (card) and quote_purchase (crypto) (seed §4 "Bridge rules", DECISIONS.md B16):
// the buyer's opt-in for a service coupon, made with the buyer's bearer on /account/mcp (list_my_coupons,
// apply_coupon_to_checkout) before the card completion or the crypto prepare. The service then charges (or quotes)
// the total minus the coupon and records who funded what; the bridge only chooses which of the buyer's coupons goes
// on which checkout.

export const ApplyCouponSchema = z
  .union([z.boolean(), z.string().min(1).max(200)])
  .optional()
  .describe(
    "Service coupon (funded by the service, not a store discount code), only when the buyer asked: true uses the buyer's largest usable coupon per checkout; or a coupon id from list_my_coupons (one checkout). Card: on confirm_purchase; crypto: on quote_purchase (the quote the buyer signs carries it). Needs the buyer's bearer",
  );

type Coupon = {
  id: string;
  amount: number;
  currency: string;
  status: string;
  applied_to: { checkout_id: string } | null;
};

export type AppliedCoupon = {
  coupon: { id: string; amount: number; currency: string; formatted: string };
  amount_due: { amount: number; currency: string; formatted: string };
};

/** Refuses a coupon request the rail or the checkouts cannot take, before anything is called. */
export const checkCouponRequest = (
  ctx: BridgeContext,
  applyCoupon: boolean | string | undefined,
  rail: "card" | "crypto" | undefined,
  checkouts: number,
): void => {
  if (applyCoupon === undefined || applyCoupon === false) return;
  if (rail === "crypto") {
    throw new BridgeInputError(
      "invalid_request",
      "For crypto the coupon goes on quote_purchase (apply_coupon there): the quote the buyer signs already pays the total minus it. Confirm without apply_coupon",
      "$.apply_coupon",
    );
  }
  if (typeof applyCoupon === "string" && checkouts > 1) {
    throw new BridgeInputError(
      "invalid_request",
      "A coupon id discounts one checkout: pass apply_coupon true for several, or confirm one checkout",
      "$.apply_coupon",
    );
  }
  requireBearer(ctx, "A service coupon", "$.apply_coupon");
};

const accountCall = async (ctx: BridgeContext, tool: string, args: Record<string, unknown>) => {
  const answer = await ctx.account.tool("/account/mcp", tool, args, {
    credentials: buyerCredentials(ctx),
    ...(ctx.headers ? { headers: ctx.headers } : {}),
  });
  const refused = businessError(answer.structuredContent);
  if (refused) throw Object.assign(new Error(refused.message), { toolError: refused });
  return answer.structuredContent;
};

/** The buyer's coupons still usable: available, or applied to an open checkout (kept on a retry of it). */
export const usableCoupons = async (ctx: BridgeContext): Promise<Coupon[]> => {
  const body = await accountCall(ctx, "list_my_coupons", {});
  const all = (body.coupons ?? []) as Coupon[];
  return all.filter((c) => c.status === "available" || c.status === "applied");
};

/**
 * Puts a coupon on one checkout: the id asked for, or (true) the largest available one in its currency that is
 * less than its total. Returns what was applied and what the card will be charged, or the service's refusal.
 */
export const applyCoupon = async (
  ctx: BridgeContext,
  ref: { store_slug: string; checkout_id: string },
  checkout: { currency: string; total: number },
  choice: true | string,
  pool: Coupon[],
): Promise<{ applied: AppliedCoupon } | { error: ToolError }> => {
  let couponId: string;
  if (choice === true) {
    // a retry keeps the coupon an earlier call put on this checkout
    const best =
      pool.find((c) => c.applied_to?.checkout_id === ref.checkout_id) ??
      pool
        .filter(
          (c) => c.status === "available" && c.currency === checkout.currency && c.amount < checkout.total,
        )
        .sort((a, b) => b.amount - a.amount)[0];
    if (!best) {
      return {
        error: {
          code: "coupon_not_available",
          message: `The buyer holds no available service coupon in ${checkout.currency} smaller than this checkout's total (list_my_coupons); nothing was charged`,
          path: "$.apply_coupon",
        },
      };
    }
    pool.splice(pool.indexOf(best), 1);
    couponId = best.id;
  } else couponId = choice;
  try {
    const body = await accountCall(ctx, "apply_coupon_to_checkout", { ...ref, coupon_id: couponId });
    const coupon = body.coupon as { id: string; amount: number };
    const currency = body.currency as string;
    const due = body.amount_due as number;
    return {
      applied: {
        coupon: { ...coupon, currency, formatted: formatMoney(coupon.amount, currency) },
        amount_due: { amount: due, currency, formatted: formatMoney(due, currency) },
      },
    };
  } catch (thrown) {
    const own = (thrown as { toolError?: ToolError }).toolError;
    if (!own && (thrown as { status?: unknown }).status === 401 && ctx.onUnauthorized) throw thrown;
    const error = own ?? toToolError(thrown);
    return { error: error.path === "$.coupon_id" ? { ...error, path: "$.apply_coupon" } : error };
  }
};

/** A checkout's currency and total as the buyer's agent sees it (the bearer; the creating key before binding). */
export const checkoutForCoupon = async (
  ctx: BridgeContext,
  ref: { store_slug: string; checkout_id: string },
): Promise<{ currency: string; total: number }> => {
  const read = async (credentials: ReturnType<typeof buyerCredentials>) => {
    const answer = await ctx.shop.tool(
      `/s/${encodeURIComponent(ref.store_slug)}/mcp`,
      "get_checkout",
      { id: ref.checkout_id },
      { credentials, ...(ctx.headers ? { headers: ctx.headers } : {}) },
    );
    const refused = businessError(answer.structuredContent);
    if (refused) throw Object.assign(new Error(refused.message), { toolError: refused });
    return answer.structuredContent as { currency: string; totals: { type: string; amount: number }[] };
  };
  let checkout;
  try {
    checkout = await read(buyerCredentials(ctx));
  } catch (thrown) {
    const own = (thrown as { toolError?: ToolError }).toolError;
    if (own?.code !== "not_found" || !ctx.credentials.apiKey) throw thrown;
    checkout = await read({ apiKey: ctx.credentials.apiKey });
  }
  return { currency: checkout.currency, total: checkout.totals.find((t) => t.type === "total")?.amount ?? 0 };
};

/** Takes the coupon off a checkout again (a quote that failed after it was applied). */
export const removeCoupon = async (ctx: BridgeContext, ref: { store_slug: string; checkout_id: string }) => {
  await accountCall(ctx, "apply_coupon_to_checkout", { ...ref, coupon_id: null });
};
