import { checkoutMandate, newIdempotencyKey, type Checkout } from "@agent-commerce/agent-kit";
import { z } from "zod";

import { presentTerms, shownTerms, termsFingerprint } from "./checkout-terms";
import { isOwedBack, purchaseSummary } from "./confirm-summary";
import { buyerCredentials, platformCredentials, storeMcpPath, type BridgeContext } from "./context";
import {
  applyCoupon,
  ApplyCouponSchema,
  checkCouponRequest,
  usableCoupons,
  type AppliedCoupon,
} from "./coupons";
import { fetchAllowance, requireBearer, type Allowance } from "./crypto";
import { businessError, toToolError, type ToolError } from "./errors";
import { PaymentMethodSchema, railOf } from "./map-args";
import { BridgeInputError, formatMoney } from "./money";
import {
  incompleteError,
  missingOf,
  readCheckout,
  type CheckoutRef,
  type LiveCheckout,
} from "./read-checkout";

// confirm_purchase (seed §4 "Bridge"): for each checkout, re-read it, sign
// the AP2 checkout mandate with the bridge's key over its live terms (the kit's terms function, the one the
// service verifies with) and call the store's complete_checkout. Card: the platform key, a payment-method token.
// Crypto: the buyer's bearer alone, the digest of the transaction the buyer's wallet submitted (one digest for
// every checkout of a combined quote) and the buyer's allowance (intent mandate) from /account/mcp. Money
// invariants:
// - Several rails offered and none chosen: payment_selection_required with the rails, before any completion.
// - One idempotency key per completion, reused by every retry of that call (kit retry.ts), so an answer lost on
//   the way back replays the first outcome instead of charging again.
// - A checkout already completed is reported with its order and not completed again, so calling confirm_purchase
//   again after a partial success finishes only what is left (and the service places one order per checkout
//   whatever arrives).
// - apply_coupon (card): the buyer's coupon is applied with the buyer's bearer before that checkout's completion
//   (coupons.ts); a coupon the service refuses fails that checkout uncharged, never charges the full price instead.
// - A crypto digest not final yet is reported as pending with that digest: the answer says to call again with the
//   same digest, never to pay again (the service also finishes it on its own).
// - Card: the live terms are signed only when they are the terms the agent saw (checkout-terms.ts: the fingerprint
//   it passes back, else the last one this process showed that caller); otherwise that checkout is refused
//   (terms_changed / terms_confirmation_required) with the new terms, and nothing is charged.
// - An incomplete checkout is not sent to complete_checkout: it fails with every missing field and its path.

const CheckoutRefSchema = z
  .object({
    store_slug: z.string().min(1).max(100),
    checkout_id: z.string().min(1).max(200),
    terms_fingerprint: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "Card: the terms_fingerprint of the checkout answer you showed the buyer (create_checkout, update_checkout, or a terms_changed result); the purchase is refused, uncharged, if the checkout changed since",
      ),
  })
  .strict();

export const ConfirmPurchaseInputSchema = z
  .object({
    checkouts: z
      .array(CheckoutRefSchema)
      .min(1)
      .max(5)
      .describe("The checkouts to pay, 1 to 5: [{store_slug, checkout_id, terms_fingerprint?}]"),
    payment_method: PaymentMethodSchema.describe(
      "The rail: card or crypto, or its handler id from ucp.payment_handlers (svc.card, svc.crypto); required when a store offers several (else payment_selection_required)",
    ),
    pay_with: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Card: a payment-method token (test stores: pm_card_visa)"),
    payment_mandate_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "The buyer's spend allowance id (get_intent_mandate); crypto: default the newest valid one. Needs the buyer's bearer",
      ),
    apply_coupon: ApplyCouponSchema,
    quote_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Crypto: the quote_id from quote_purchase (optional; it implies payment_method crypto)"),
    transaction_digest: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "Crypto: the digest the buyer's wallet returned after signing and submitting the quote's transaction",
      ),
  })
  .strict();
export type ConfirmPurchaseInput = z.infer<typeof ConfirmPurchaseInputSchema>;

const ResultSchema = z.looseObject({
  store_slug: z.string(),
  checkout_id: z.string(),
  status: z.enum(["completed", "pending", "requires_buyer_action", "payment_selection_required", "failed"]),
  already_completed: z.boolean().optional(),
  order: z.looseObject({ id: z.string() }).optional(),
  total: z.looseObject({ amount: z.number().int(), currency: z.string(), formatted: z.string() }).optional(),
  continue_url: z.string().optional(),
  transaction_digest: z.string().optional(),
  rails: z.array(z.string()).optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  coupon: z
    .looseObject({ id: z.string(), amount: z.number().int(), currency: z.string(), formatted: z.string() })
    .optional()
    .describe("the service coupon applied: the service funds this part of the total"),
  owed_back: z
    .boolean()
    .optional()
    .describe("a payment arrived for this checkout but could not pay for it: it is recorded as owed back"),
  amount_due: z
    .looseObject({ amount: z.number().int(), currency: z.string(), formatted: z.string() })
    .optional()
    .describe("what the card is charged: the total minus the coupon"),
});

export const ConfirmPurchaseOutputSchema = z.looseObject({
  status: z.enum([
    "completed",
    "pending",
    "partial",
    "failed",
    "requires_buyer_action",
    "payment_selection_required",
  ]),
  message: z.string(),
  results: z.array(ResultSchema),
});

type Result = z.infer<typeof ResultSchema>;

/** Rail ids the checkout's store offers (UCP payment_handlers, keyed by registry name: DECISIONS.md B2). */
const railsOf = (checkout: Record<string, unknown>): string[] => {
  const handlers = (checkout.ucp as { payment_handlers?: unknown } | undefined)?.payment_handlers;
  if (typeof handlers !== "object" || handlers === null) return [];
  const ids = Object.values(handlers)
    .flatMap((instances) => (Array.isArray(instances) ? instances : []))
    .map((instance) => (instance as { id?: unknown }).id)
    .filter((handlerId): handlerId is string => typeof handlerId === "string");
  return [...new Set(ids)];
};

const totalOf = (checkout: Checkout) => {
  const amount = checkout.totals.find((t) => t.type === "total")?.amount;
  return amount === undefined
    ? undefined
    : { amount, currency: checkout.currency, formatted: formatMoney(amount, checkout.currency) };
};

const failed = (ref: { store_slug: string; checkout_id: string }, error: ToolError): Result => ({
  ...ref,
  status: "failed",
  error,
});

/** The rail asked for: named, or crypto when a digest or a quote is given; undefined when nothing says. */
const railAskedFor = (input: ConfirmPurchaseInput): "card" | "crypto" | undefined => {
  const cryptoHint = input.transaction_digest !== undefined || input.quote_id !== undefined;
  if (railOf(input.payment_method) === "card" && cryptoHint) {
    throw new BridgeInputError(
      "invalid_request",
      "transaction_digest and quote_id are for crypto payments; a card payment takes pay_with",
      input.transaction_digest !== undefined ? "$.transaction_digest" : "$.quote_id",
    );
  }
  return railOf(input.payment_method) ?? (cryptoHint ? "crypto" : undefined);
};

/** A checkout answer that says the crypto payment is submitted but not final yet. */
const pendingMessage = (body: Record<string, unknown>) =>
  (Array.isArray(body.messages) ? (body.messages as { code?: unknown; content?: unknown }[]) : []).find(
    (m) => m.code === "payment_pending",
  );

/** Reads, signs and completes the checkouts; results per checkout (see the file comment for the invariants). */
export const confirmPurchase = async (
  ctx: BridgeContext,
  input: ConfirmPurchaseInput,
): Promise<Record<string, unknown>> => {
  const rail = railAskedFor(input);
  checkCouponRequest(ctx, input.apply_coupon, rail, input.checkouts.length);
  const digest = input.transaction_digest;
  if (rail === "crypto") {
    if (input.pay_with !== undefined) {
      throw new BridgeInputError(
        "invalid_request",
        "For crypto the coin is chosen when quoting (quote_purchase pay_with); confirm_purchase takes transaction_digest",
        "$.pay_with",
      );
    }
    if (digest === undefined) {
      throw new BridgeInputError(
        "transaction_digest_required",
        "A crypto confirmation needs transaction_digest: the digest the buyer's wallet returned after signing and submitting the transaction from quote_purchase (or send the buyer to its continue_url)",
        "$.transaction_digest",
      );
    }
    requireBearer(ctx, "A crypto payment", "$.payment_method");
  }
  if (input.payment_mandate_id !== undefined) requireBearer(ctx, "An allowance", "$.payment_mandate_id");
  const seen = new Set<string>();
  input.checkouts.forEach((ref, i) => {
    const key = `${ref.store_slug}\n${ref.checkout_id}`;
    if (seen.has(key)) {
      throw new BridgeInputError("invalid_request", "The same checkout is listed twice", `$.checkouts[${i}]`);
    }
    seen.add(key);
  });

  // the buyer's allowance, before anything is completed (a card completion honours the one named). With none
  // signed yet a crypto completion goes on without it: whether it needs one is the service's call (a prepared
  // payment already holds the buyer's approval), and its refusal (code, continue_url) is relayed as it came
  let allowance: Allowance | null = null;
  if (input.payment_mandate_id !== undefined || rail === "crypto") {
    allowance = await fetchAllowance(ctx, input.payment_mandate_id, "$.payment_mandate_id");
  }

  const headers = ctx.headers ? { headers: ctx.headers } : {};
  const call = { credentials: platformCredentials(ctx), ...headers };
  // crypto is buyer-bound (the bearer alone, seed §5 rule 1)
  const payCall = rail === "crypto" ? { credentials: buyerCredentials(ctx), ...headers } : call;

  // 1. the live state of every checkout (sequentially: one agent's purchase, a handful of calls)
  const states: {
    ref: CheckoutRef;
    /** The terms the agent says it showed (its fingerprint, else the last this caller was shown here). */
    seen?: string;
    checkout?: LiveCheckout;
    error?: ToolError;
  }[] = [];
  for (const { terms_fingerprint: given, ...ref } of input.checkouts) {
    const seen = given ?? shownTerms(ctx, ref);
    try {
      const checkout = await readCheckout(ctx, ref, { buyerFirst: rail === "crypto" });
      states.push({ ref, checkout, ...(seen ? { seen } : {}) });
    } catch (thrown) {
      const own = (thrown as { toolError?: ToolError }).toolError;
      states.push({ ref, error: own ?? toToolError(thrown) });
      if (!own) rethrowUnauthorized(ctx, thrown);
    }
  }
  const open = states.filter(
    (s) => s.checkout && s.checkout.status !== "completed" && s.checkout.status !== "canceled",
  );

  // 2. seed §4: several rails and none chosen → payment_selection_required, and nothing is completed
  if (rail === undefined) {
    const choosing = open.filter((s) => railsOf(s.checkout!).length > 1);
    if (choosing.length > 0) {
      return {
        status: "payment_selection_required",
        message:
          "A store offers several payment rails: call confirm_purchase again with payment_method (card or crypto, or the handler id svc.card or svc.crypto). Nothing was charged.",
        results: states.map((s): Result =>
          s.checkout
            ? {
                ...s.ref,
                status: railsOf(s.checkout).length > 1 ? "payment_selection_required" : "failed",
                rails: railsOf(s.checkout),
                ...(railsOf(s.checkout).length > 1
                  ? {}
                  : {
                      error: {
                        code: "not_attempted",
                        message: "Not attempted: choose a payment_method first",
                      },
                    }),
              }
            : failed(s.ref, s.error!),
        ),
      };
    }
  }

  // 3. complete what is left, one checkout at a time (after putting the buyer's coupon on it, when asked)
  const couponChoice =
    input.apply_coupon === undefined || input.apply_coupon === false ? null : input.apply_coupon;
  let couponPool: Awaited<ReturnType<typeof usableCoupons>> = [];
  if (couponChoice === true) {
    try {
      couponPool = await usableCoupons(ctx);
    } catch (thrown) {
      rethrowUnauthorized(ctx, thrown);
      const error = (thrown as { toolError?: ToolError }).toolError ?? toToolError(thrown);
      return {
        status: "failed",
        message: "Nothing was paid (see each result's error).",
        results: states.map((s) => failed(s.ref, error)),
      };
    }
  }
  const results: Result[] = [];
  for (const state of states) {
    const { ref, checkout, seen } = state;
    if (!checkout) {
      results.push(failed(ref, state.error!));
      continue;
    }
    if (checkout.status === "completed" && checkout.order) {
      results.push({
        ...ref,
        status: "completed",
        already_completed: true,
        order: checkout.order,
        ...total(checkout),
      });
      continue;
    }
    if (checkout.status === "canceled") {
      results.push(
        failed(ref, { code: "checkout_canceled", message: "This checkout was canceled; create a new one" }),
      );
      continue;
    }
    if (checkout.status === "incomplete") {
      results.push(failed(ref, incompleteError(ref, checkout)));
      continue;
    }
    // card: never sign terms other than those the agent showed (the crypto amounts are bound by the transaction
    // the buyer's wallet signed, and what arrives short is owed back, not charged)
    if (rail !== "crypto") {
      const changed = termsRefusal(ref, checkout, seen, `$.checkouts[${states.indexOf(state)}]`);
      if (changed) {
        results.push(failed(ref, changed));
        continue;
      }
    }
    const handlerId = rail === "crypto" ? "svc.crypto" : "svc.card";
    if (!railsOf(checkout).includes(handlerId)) {
      results.push(
        failed(ref, {
          code: "unsupported_payment_method",
          message: rail === "crypto" ? "This store does not take crypto" : "This store does not take cards",
        }),
      );
      continue;
    }
    let applied: AppliedCoupon | null = null;
    if (couponChoice !== null) {
      const amount = checkout.totals.find((t) => t.type === "total")?.amount ?? 0;
      const outcome = await applyCoupon(
        ctx,
        ref,
        { currency: checkout.currency, total: amount },
        couponChoice,
        couponPool,
      );
      if ("error" in outcome) {
        results.push(failed(ref, outcome.error));
        continue;
      }
      applied = outcome.applied;
    }
    try {
      const mandate = await checkoutMandate(checkout, ref.store_slug, ctx.signer);
      const instrument =
        rail === "crypto"
          ? { handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } }
          : {
              handler_id: "svc.card",
              selected: true,
              ...(input.pay_with ? { credential: { type: "stripe_token", token: input.pay_with } } : {}),
            };
      const ap2 = {
        checkout_mandate: mandate,
        ...(allowance ? { intent_mandate: allowance.intent_mandate } : {}),
      };
      const answer = await ctx.shop.tool(
        storeMcpPath(ref.store_slug),
        "complete_checkout",
        { id: ref.checkout_id, checkout: { payment: { instruments: [instrument] }, ap2 } },
        // a fresh key per completion (the mandate is new each call), reused by this call's retries
        { ...payCall, mutates: true, idempotencyKey: newIdempotencyKey() },
      );
      const body = answer.structuredContent as Checkout & Record<string, unknown>;
      const refused = businessError(body);
      const pending = rail === "crypto" ? pendingMessage(body) : undefined;
      if (body.status === "completed" && body.order) {
        results.push({ ...ref, status: "completed", order: body.order, ...total(body), ...(applied ?? {}) });
      } else if (pending) {
        results.push({
          ...ref,
          status: "pending",
          transaction_digest: digest!,
          ...total(body),
          error: {
            code: "payment_pending",
            message:
              typeof pending.content === "string"
                ? pending.content
                : "The transaction is not final on the chain yet",
          },
        });
      } else if (!refused && typeof body.continue_url === "string") {
        results.push({
          ...ref,
          status: "requires_buyer_action",
          continue_url: body.continue_url,
          ...total(body),
        });
      } else if (!refused && body.status === "incomplete") {
        // re-priced at completion (e.g. a line sold out): every blocker with its path
        results.push(failed(ref, incompleteError(ref, body, missingOf(body)[0]?.code)));
      } else {
        const error = refused ??
          (body.messages ?? [])
            .filter((m) => m.type === "error")
            .map((m): ToolError => ({
              code: m.code ?? "error",
              message: m.content,
              ...(m.path ? { path: m.path } : {}),
            }))[0] ?? {
            code: "not_completed",
            message: `The checkout is ${String(body.status)} after completion`,
          };
        results.push(failed(ref, error));
      }
    } catch (thrown) {
      rethrowUnauthorized(ctx, thrown);
      results.push(failed(ref, toToolError(thrown)));
    }
  }

  const marked = results.map((r) => (isOwedBack(r) ? { ...r, owed_back: true } : r));
  return { ...purchaseSummary({ results: marked, rail, digest }), results: marked };
};

/** The refusal of a card checkout whose terms are not the ones the agent saw, or null when they are. */
const termsRefusal = (
  ref: CheckoutRef,
  checkout: LiveCheckout,
  seen: string | undefined,
  at: string,
): ToolError | null => {
  const live = termsFingerprint(checkout, ref.store_slug);
  if (seen === live) return null;
  const terms = presentTerms(checkout, ref.store_slug);
  const now = terms.total ? ` (total now ${terms.total.formatted})` : "";
  return seen === undefined
    ? {
        code: "terms_confirmation_required",
        message: `Nothing was charged: the bridge has not shown you this checkout's terms${now}. Show the buyer these terms and, if they agree, call confirm_purchase again with checkouts[].terms_fingerprint = ${live}`,
        path: `${at}.terms_fingerprint`,
        terms,
      }
    : {
        code: "terms_changed",
        message: `Nothing was charged: the checkout changed since you read it (lines, quantities, prices, shipping or total)${now}. Show the buyer the new terms and, if they agree, call confirm_purchase again with checkouts[].terms_fingerprint = ${live}`,
        path: `${at}.terms_fingerprint`,
        terms,
      };
};

const total = (checkout: Checkout) => {
  const value = totalOf(checkout);
  return value ? { total: value } : {};
};

/** A 401 from the service ends the tool call: the HTTP surface relays it (seed §5 rule 6). */
const rethrowUnauthorized = (ctx: BridgeContext, thrown: unknown) => {
  const status = (thrown as { status?: unknown }).status;
  if (status === 401 && ctx.onUnauthorized) throw thrown;
};
