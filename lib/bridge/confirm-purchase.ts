import { checkoutMandate, newIdempotencyKey, type Checkout } from "@agent-commerce/agent-kit";
import { z } from "zod";

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
import { BridgeInputError, formatMoney } from "./money";

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

const CheckoutRefSchema = z
  .object({
    store_slug: z.string().min(1).max(100),
    checkout_id: z.string().min(1).max(200),
  })
  .strict();

export const ConfirmPurchaseInputSchema = z
  .object({
    checkouts: z
      .array(CheckoutRefSchema)
      .min(1)
      .max(5)
      .describe("The checkouts to pay, 1 to 5: [{store_slug, checkout_id}]"),
    payment_method: z
      .enum(["card", "crypto"])
      .optional()
      .describe("The rail; required when a store offers several (else payment_selection_required)"),
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
  if (input.payment_method === "card" && cryptoHint) {
    throw new BridgeInputError(
      "invalid_request",
      "transaction_digest and quote_id are for crypto payments; a card payment takes pay_with",
      input.transaction_digest !== undefined ? "$.transaction_digest" : "$.quote_id",
    );
  }
  return input.payment_method ?? (cryptoHint ? "crypto" : undefined);
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

  // the buyer's allowance, before anything is completed (a crypto completion needs one; a card one honours it)
  let allowance: Allowance | null = null;
  if (input.payment_mandate_id !== undefined || rail === "crypto") {
    allowance = await fetchAllowance(ctx, input.payment_mandate_id, "$.payment_mandate_id");
    if (!allowance) {
      throw new BridgeInputError(
        "allowance_required",
        "The buyer has not signed a spend allowance for this agent: send them to the continue_url from quote_purchase (the wallet page), then call confirm_purchase again with the same transaction_digest. Do not pay again: the submitted transaction is not lost",
        "$.payment_mandate_id",
      );
    }
  }

  const headers = ctx.headers ? { headers: ctx.headers } : {};
  const call = { credentials: platformCredentials(ctx), ...headers };
  // crypto is buyer-bound (the bearer alone, seed §5 rule 1)
  const payCall = rail === "crypto" ? { credentials: buyerCredentials(ctx), ...headers } : call;
  const readWith = async (
    ref: { store_slug: string; checkout_id: string },
    with_: { credentials: ReturnType<typeof platformCredentials> },
  ) => {
    const answer = await ctx.shop.tool(
      storeMcpPath(ref.store_slug),
      "get_checkout",
      { id: ref.checkout_id },
      {
        ...headers,
        ...with_,
      },
    );
    const refused = businessError(answer.structuredContent);
    if (refused) throw Object.assign(new Error(refused.message), { toolError: refused });
    return answer.structuredContent as Checkout & Record<string, unknown>;
  };
  const read = async (ref: { store_slug: string; checkout_id: string }) => {
    if (rail !== "crypto") return readWith(ref, call);
    // a checkout the platform created is visible to the buyer once a buyer-bound call bound it (B17); before
    // that (no quote through this agent), its creator's key still reads it
    try {
      return await readWith(ref, payCall);
    } catch (thrown) {
      const own = (thrown as { toolError?: ToolError }).toolError;
      if (own?.code !== "not_found" || !ctx.credentials.apiKey) throw thrown;
      return readWith(ref, call);
    }
  };

  // 1. the live state of every checkout (sequentially: one agent's purchase, a handful of calls)
  const states: {
    ref: (typeof input.checkouts)[number];
    checkout?: Checkout & Record<string, unknown>;
    error?: ToolError;
  }[] = [];
  for (const ref of input.checkouts) {
    try {
      states.push({ ref, checkout: await read(ref) });
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
          "A store offers several payment rails: call confirm_purchase again with payment_method (card or crypto). Nothing was charged.",
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
    const { ref, checkout } = state;
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

  const done = results.filter((r) => r.status === "completed").length;
  const pending = results.filter((r) => r.status === "pending").length;
  const waiting = results.filter((r) => r.status === "requires_buyer_action").length;
  const status =
    done === results.length
      ? "completed"
      : pending > 0 && done + pending === results.length
        ? "pending"
        : waiting > 0 && done + waiting === results.length
          ? "requires_buyer_action"
          : done + pending + waiting > 0
            ? "partial"
            : "failed";
  const message = {
    completed: "Every checkout is paid and has its order.",
    pending: `The transaction ${digest ?? ""} is submitted but not final on the chain yet. Do NOT pay again and do not sign another quote: call confirm_purchase again in a little while with the same checkouts and the same transaction_digest (paid ones are not charged again; the service also finishes it on its own).`,
    requires_buyer_action: "The buyer must finish paying at each continue_url.",
    partial:
      rail === "crypto"
        ? "Some checkouts are paid, others not (see each result). Call confirm_purchase again with the same checkouts and the same transaction_digest: paid ones are not completed again. Do not pay again for a pending one."
        : "Some checkouts are paid, others not (see each result's error). Fix them and call confirm_purchase again with the same checkouts: paid ones are not charged again.",
    failed: "Nothing was paid (see each result's error).",
  }[status];
  return { status, message, results };
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
