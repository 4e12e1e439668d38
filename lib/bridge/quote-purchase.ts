import { z } from "zod";

import { buyerCredentials, storeMcpPath, type BridgeContext } from "./context";
import {
  applyCoupon,
  ApplyCouponSchema,
  checkoutForCoupon,
  removeCoupon,
  usableCoupons,
  type AppliedCoupon,
} from "./coupons";
import {
  allowancePayload,
  failureOf,
  fetchAllowance,
  presentGasReserve,
  presentLeg,
  refusalAt,
  requireBearer,
  type RawLeg,
} from "./crypto";
import { businessError, type ToolError } from "./errors";
import { PaymentMethodSchema, railOf } from "./map-args";
import { BridgeInputError, formatMoney } from "./money";
import { incompleteError, readCheckout } from "./read-checkout";

// quote_purchase (seed §4 "Bridge": buyer bearer, crypto only, moves no money). One checkout → the store's
// prepare_checkout_payment; 2–5 checkouts, one per store → prepare_combined_payment on /account/mcp (one
// transaction pays every store; each checkout is then completed at its own store with the same digest). The answer
// is the quote made readable (minor units with formatted amounts; coin amounts in base units and in whole coins),
// the unsigned transaction, the wallet page link and what to do next.
//
// quote_id is the prepared transaction's digest, for one checkout and for several alike: it is what the service
// keys a prepared payment by, and what the buyer's wallet returns when it signs the bytes unchanged. A combined
// quote also carries the service's group_id. confirm_purchase does not need quote_id (the digest the wallet
// returns is what settles, and a wallet may re-gas the transaction into another digest); given, it only says
// "crypto".

export const MAX_CHECKOUTS = 5;

const CheckoutRefSchema = z
  .object({
    store_slug: z.string().min(1).max(100),
    checkout_id: z.string().min(1).max(200),
  })
  .strict();

export const QuotePurchaseInputSchema = z
  .object({
    checkouts: z
      .array(CheckoutRefSchema)
      .min(1, "Send 1 to 5 checkouts (none were sent)")
      .max(MAX_CHECKOUTS, "Send at most 5 checkouts, one per store")
      .describe("The checkouts to pay together, 1 to 5, at most one per store: [{store_slug, checkout_id}]"),
    payment_method: PaymentMethodSchema.describe(
      "Only crypto (or its handler id svc.crypto) is quoted (a card purchase needs no quote: call confirm_purchase)",
    ),
    pay_with: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe(
        "One coin that pays alone (symbol from the store's accepted coins such as USDC, or a full coin type); default auto: stablecoins first, up to 3 coins",
      ),
    buyer_address: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "The Sui wallet address the buyer signed in with; default: the address of the buyer's allowance (get_intent_mandate)",
      ),
    apply_coupon: ApplyCouponSchema,
  })
  .strict();
export type QuotePurchaseInput = z.infer<typeof QuotePurchaseInputSchema>;

const money = z.looseObject({ amount: z.number().int(), currency: z.string(), formatted: z.string() });
const Leg = z.looseObject({
  coin_type: z.string(),
  symbol: z.string(),
  decimals: z.number().int(),
  amount: z.string(),
  amount_formatted: z.string(),
  formatted: z.string(),
  fiat_amount: money,
});

export const QuotePurchaseOutputSchema = z.looseObject({
  quote_id: z.string(),
  group_id: z.string().optional(),
  payment_method: z.literal("crypto"),
  buyer_address: z.string(),
  total: money.optional(),
  checkouts: z.array(
    z.looseObject({
      store_slug: z.string(),
      checkout_id: z.string(),
      total: money.optional(),
      legs: z.array(Leg).optional(),
    }),
  ),
  legs: z.array(Leg),
  gas_reserve: z.looseObject({ coin_type: z.string(), amount: z.string() }).optional(),
  transaction: z.looseObject({ bytes: z.string(), digest: z.string() }),
  expires_at: z.string(),
  continue_url: z.string(),
  next_steps: z.string(),
});

type RawQuote = {
  mode?: string;
  currency?: string;
  total?: number;
  legs?: RawLeg[];
  gas_reserve?: { coin_type: string; amount: string };
  expires_at?: string;
};

type Prepared = {
  buyer_address: string;
  transaction: { bytes: string; digest: string };
  quote: RawQuote;
  expires_at: string;
  continue_url: string;
};

type CombinedPrepared = Prepared & {
  group_id: string;
  checkouts: {
    store_slug: string;
    checkout_id: string;
    total?: number | { amount: number };
    currency?: string;
    legs?: RawLeg[];
  }[];
};

const totalOf = (amount: number | undefined, currency: string | undefined) =>
  amount === undefined || currency === undefined
    ? undefined
    : { amount, currency, formatted: formatMoney(amount, currency) };

const nextSteps = (expiresAt: string, count: number) =>
  [
    "Nothing is paid yet. Show the buyer the total and each coin amount (legs).",
    "Then either: (a) have the buyer's wallet sign transaction.bytes and submit it, then call confirm_purchase with the same checkouts, payment_method 'crypto', transaction_digest (the digest the wallet returns) and payment_mandate_id (the buyer's allowance id from get_intent_mandate);",
    "or (b) give the buyer continue_url: they sign on the wallet page, which also lets them sign an allowance for you.",
    `The quote holds until ${expiresAt}; after that call quote_purchase again.`,
    count > 1 ? "One transaction pays every store: sign it once." : "",
    "Never sign two quotes for the same checkouts.",
  ]
    .filter(Boolean)
    .join(" ");

/** Refusals the bridge can give before calling the service (each with the argument's JSONPath). */
const checkInput = (input: QuotePurchaseInput) => {
  if (railOf(input.payment_method) === "card") {
    throw new BridgeInputError(
      "unsupported_payment_method",
      "quote_purchase quotes crypto payments only; a card purchase needs no quote: call confirm_purchase with payment_method 'card'",
      "$.payment_method",
    );
  }
  if (typeof input.apply_coupon === "string" && input.checkouts.length > 1) {
    throw new BridgeInputError(
      "invalid_request",
      "A coupon id discounts one checkout: pass apply_coupon true for several, or quote one checkout",
      "$.apply_coupon",
    );
  }
  const stores = new Map<string, number>();
  input.checkouts.forEach((ref, i) => {
    const first = stores.get(ref.store_slug);
    if (first !== undefined) {
      throw new BridgeInputError(
        "invalid_request",
        `Two checkouts of store ${ref.store_slug} (checkouts[${first}] and checkouts[${i}]): one quote pays at most one checkout per store; put the items in one checkout`,
        `$.checkouts[${i}].store_slug`,
      );
    }
    stores.set(ref.store_slug, i);
  });
};

/** buyer_address as given, else the wallet address in the buyer's newest allowance for this agent. */
const buyerAddressOf = async (ctx: BridgeContext, input: QuotePurchaseInput): Promise<string> => {
  if (input.buyer_address !== undefined) return input.buyer_address;
  const allowance = await fetchAllowance(ctx, undefined, "$.buyer_address");
  const address = allowance ? allowancePayload(allowance.intent_mandate)?.buyer_address : undefined;
  if (address) return address;
  throw new BridgeInputError(
    "buyer_address_required",
    "Give buyer_address: the Sui wallet address the buyer signed in with (the bridge takes it from the buyer's allowance when there is one, and there is none yet)",
    "$.buyer_address",
  );
};

export const quotePurchase = async (
  ctx: BridgeContext,
  input: QuotePurchaseInput,
): Promise<Record<string, unknown>> => {
  checkInput(input);
  requireBearer(ctx, "quote_purchase", "$");
  // the buyer's service coupons go on the checkouts before the prepare, so the quote pays the total minus them; a
  // quote that then fails takes them off again (nothing was signed)
  const coupons = await applyCoupons(ctx, input);
  try {
    return await quoteWith(ctx, input, coupons);
  } catch (thrown) {
    for (const ref of input.checkouts.filter((r) => coupons.has(r.checkout_id))) {
      await removeCoupon(ctx, ref).catch(() => undefined);
    }
    throw thrown;
  }
};

const applyCoupons = async (
  ctx: BridgeContext,
  input: QuotePurchaseInput,
): Promise<Map<string, AppliedCoupon>> => {
  const coupons = new Map<string, AppliedCoupon>();
  if (input.apply_coupon === undefined || input.apply_coupon === false) return coupons;
  const choice = input.apply_coupon;
  try {
    const pool = choice === true ? await usableCoupons(ctx) : [];
    for (const ref of input.checkouts) {
      const outcome = await applyCoupon(ctx, ref, await checkoutForCoupon(ctx, ref), choice, pool);
      if ("error" in outcome) return refusalAt(outcome.error, {}, "$.apply_coupon");
      coupons.set(ref.checkout_id, outcome.applied);
    }
  } catch (thrown) {
    for (const ref of input.checkouts.filter((r) => coupons.has(r.checkout_id))) {
      await removeCoupon(ctx, ref).catch(() => undefined);
    }
    if (thrown instanceof BridgeInputError) throw thrown;
    const own = (thrown as { toolError?: ToolError }).toolError;
    return refusalAt(own ?? failureOf(ctx, thrown), {}, "$.apply_coupon");
  }
  return coupons;
};

/**
 * A refusal because a checkout cannot be paid yet, with what it is missing: the service says only that it is not
 * ready, and the checkout's own messages name each blocker with its JSONPath. Other refusals pass unchanged.
 */
const withMissing = async (
  ctx: BridgeContext,
  refs: QuotePurchaseInput["checkouts"],
  refused: ToolError,
): Promise<ToolError> => {
  if (refused.code !== "checkout_not_modifiable") return refused;
  for (const [i, ref] of refs.entries()) {
    let checkout;
    try {
      checkout = await readCheckout(ctx, ref, { buyerFirst: true });
    } catch (thrown) {
      failureOf(ctx, thrown);
      continue;
    }
    if (checkout.status !== "incomplete") continue;
    const explained = incompleteError(ref, checkout, refused.code);
    return {
      ...explained,
      path: explained.missing?.[0] ? `$.checkouts[${i}]` : (refused.path ?? `$.checkouts[${i}]`),
    };
  }
  return refused;
};

const quoteWith = async (
  ctx: BridgeContext,
  input: QuotePurchaseInput,
  coupons: Map<string, AppliedCoupon>,
): Promise<Record<string, unknown>> => {
  const buyerAddress = await buyerAddressOf(ctx, input);
  const call = {
    mutates: true,
    credentials: buyerCredentials(ctx),
    ...(ctx.headers ? { headers: ctx.headers } : {}),
  };
  const coin = input.pay_with !== undefined ? { input_coin_type: input.pay_with } : {};
  const couponOf = (checkoutId: string) => {
    const applied = coupons.get(checkoutId);
    return applied ? { coupon: applied.coupon } : {};
  };

  if (input.checkouts.length === 1) {
    const ref = input.checkouts[0]!;
    let answer;
    try {
      // seed §4: quote_purchase → prepare_checkout_payment (the store's MCP; the buyer's bearer alone)
      answer = await ctx.shop.tool(
        storeMcpPath(ref.store_slug),
        "prepare_checkout_payment",
        { id: ref.checkout_id, buyer_address: buyerAddress, ...coin },
        call,
      );
    } catch (thrown) {
      // e.g. an unknown store: store_not_found at $.store_slug (the endpoint's own path segment)
      return refusalAt(
        failureOf(ctx, thrown),
        { "$.id": "$.checkouts[0].checkout_id", "$.store_slug": "$.checkouts[0].store_slug" },
        "$.checkouts[0]",
      );
    }
    const refused = businessError(answer.structuredContent);
    if (refused) {
      return refusalAt(
        await withMissing(ctx, input.checkouts, refused),
        {
          "$.id": "$.checkouts[0].checkout_id",
          "$.input_coin_type": "$.pay_with",
          "$.buyer_address": "$.buyer_address",
        },
        "$.checkouts[0]",
      );
    }
    const prepared = answer.structuredContent as unknown as Prepared;
    const currency = prepared.quote.currency;
    const legs = prepared.quote.legs ?? [];
    return {
      quote_id: prepared.transaction.digest,
      payment_method: "crypto",
      buyer_address: prepared.buyer_address,
      ...(totalOf(prepared.quote.total, currency) ? { total: totalOf(prepared.quote.total, currency) } : {}),
      checkouts: [
        {
          ...ref,
          ...couponOf(ref.checkout_id),
          ...(totalOf(prepared.quote.total, currency)
            ? { total: totalOf(prepared.quote.total, currency) }
            : {}),
        },
      ],
      legs: legs.map((leg) => presentLeg(leg, currency ?? "USD")),
      ...(prepared.quote.gas_reserve
        ? { gas_reserve: presentGasReserve(prepared.quote.gas_reserve, legs) }
        : {}),
      transaction: prepared.transaction,
      expires_at: prepared.expires_at,
      continue_url: prepared.continue_url,
      next_steps: nextSteps(prepared.expires_at, 1),
    };
  }

  let answer;
  try {
    // 2–5 stores: one transaction for all (the buyer account surface; the buyer's bearer alone)
    answer = await ctx.account.tool(
      "/account/mcp",
      "prepare_combined_payment",
      { checkouts: input.checkouts, buyer_address: buyerAddress, ...coin },
      call,
    );
  } catch (thrown) {
    return refusalAt(failureOf(ctx, thrown), { "$.input_coin_type": "$.pay_with" }, "$.checkouts");
  }
  const refused = businessError(answer.structuredContent);
  if (refused) {
    return refusalAt(
      await withMissing(ctx, input.checkouts, refused),
      { "$.input_coin_type": "$.pay_with" },
      "$.checkouts",
    );
  }
  const prepared = answer.structuredContent as unknown as CombinedPrepared;
  const currency = prepared.quote.currency;
  const legs = prepared.quote.legs ?? [];
  return {
    quote_id: prepared.transaction.digest,
    group_id: prepared.group_id,
    payment_method: "crypto",
    buyer_address: prepared.buyer_address,
    ...(totalOf(prepared.quote.total, currency) ? { total: totalOf(prepared.quote.total, currency) } : {}),
    checkouts: prepared.checkouts.map((c) => {
      const amount = typeof c.total === "number" ? c.total : c.total?.amount;
      const own = c.currency ?? currency;
      return {
        store_slug: c.store_slug,
        checkout_id: c.checkout_id,
        ...couponOf(c.checkout_id),
        ...(totalOf(amount, own) ? { total: totalOf(amount, own) } : {}),
        ...(c.legs ? { legs: c.legs.map((leg) => presentLeg(leg, own ?? "USD")) } : {}),
      };
    }),
    legs: legs.map((leg) => presentLeg(leg, currency ?? "USD")),
    ...(prepared.quote.gas_reserve
      ? { gas_reserve: presentGasReserve(prepared.quote.gas_reserve, legs) }
      : {}),
    transaction: prepared.transaction,
    expires_at: prepared.expires_at,
    continue_url: prepared.continue_url,
    next_steps: nextSteps(prepared.expires_at, prepared.checkouts.length),
  };
};
