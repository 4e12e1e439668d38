import { checkoutMandate, newIdempotencyKey, type Checkout } from "@agent-commerce/agent-kit";
import { z } from "zod";

import { buyerCredentials, platformCredentials, storeMcpPath, type BridgeContext } from "./context";
import { businessError, toToolError, type ToolError } from "./errors";
import { BridgeInputError, formatMoney } from "./money";

// confirm_purchase, card rail (seed §4 "Bridge"; crypto and service coupons come with their issues): for each
// checkout, re-read it, sign the AP2 checkout mandate with the bridge's key over its live terms (the kit's terms
// function, the one the service verifies with) and call the store's complete_checkout — with the buyer's allowance
// (payment_mandate_id, an allowance id) as ap2.intent_mandate when one is named. Money invariants:
// - Several rails offered and none chosen: payment_selection_required with the rails, before any completion.
// - One idempotency key per completion, reused by every retry of that call (kit retry.ts), so an answer lost on
//   the way back replays the first outcome instead of charging again.
// - A checkout already completed is reported with its order and not completed again, so calling confirm_purchase
//   again after a partial success finishes only what is left (and the service places one order per checkout
//   whatever arrives).

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
        "The buyer's spend allowance id (list_my_allowances): each card completion then counts against it; needs the buyer's bearer beside the platform key",
      ),
    apply_coupon: z.boolean().optional().describe("Use the buyer's service coupon (not yet)"),
    quote_id: z.string().max(200).optional().describe("Crypto: the quote from quote_purchase (not yet)"),
    transaction_digest: z
      .string()
      .max(200)
      .optional()
      .describe("Crypto: the signed transaction's digest (not yet)"),
  })
  .strict();
export type ConfirmPurchaseInput = z.infer<typeof ConfirmPurchaseInputSchema>;

const ResultSchema = z.looseObject({
  store_slug: z.string(),
  checkout_id: z.string(),
  status: z.enum(["completed", "requires_buyer_action", "payment_selection_required", "failed"]),
  already_completed: z.boolean().optional(),
  order: z.looseObject({ id: z.string() }).optional(),
  total: z.looseObject({ amount: z.number().int(), currency: z.string(), formatted: z.string() }).optional(),
  continue_url: z.string().optional(),
  rails: z.array(z.string()).optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
});

export const ConfirmPurchaseOutputSchema = z.looseObject({
  status: z.enum(["completed", "partial", "failed", "requires_buyer_action", "payment_selection_required"]),
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

const notYet = (what: string, path: string): never => {
  throw new BridgeInputError(
    "not_supported",
    `${what} through the bridge is not available yet; pay by card (payment_method "card")`,
    path,
  );
};

/**
 * The signed allowance behind a payment_mandate_id, from the buyer's account surface (get_intent_mandate).
 * @throws BridgeInputError identity_required (no buyer bearer), or the account surface's refusal (not_found, …)
 */
const allowanceOf = async (ctx: BridgeContext, id: string): Promise<string> => {
  const path = "$.payment_mandate_id";
  if (!ctx.credentials.authorization) {
    throw new BridgeInputError(
      "identity_required",
      "payment_mandate_id is the buyer's allowance: send the buyer's OAuth bearer (Authorization) with the platform key so the bridge can fetch it",
      path,
    );
  }
  const answer = await ctx.account.tool(
    "/account/mcp",
    "get_intent_mandate",
    { id },
    { credentials: buyerCredentials(ctx), ...(ctx.headers ? { headers: ctx.headers } : {}) },
  );
  const refused = businessError(answer.structuredContent);
  if (refused) throw new BridgeInputError(refused.code, refused.message, path);
  const mandate = (answer.structuredContent as { intent_mandate?: unknown }).intent_mandate;
  if (typeof mandate !== "string") {
    throw new BridgeInputError("not_found", `No allowance "${id}" for this agent`, path);
  }
  return mandate;
};

/** Reads, signs and completes the checkouts; results per checkout (see the file comment for the invariants). */
export const confirmPurchase = async (
  ctx: BridgeContext,
  input: ConfirmPurchaseInput,
): Promise<Record<string, unknown>> => {
  if (input.payment_method === "crypto") notYet("Crypto payment", "$.payment_method");
  if (input.transaction_digest !== undefined) notYet("Crypto payment", "$.transaction_digest");
  if (input.quote_id !== undefined) notYet("Crypto payment", "$.quote_id");
  if (input.apply_coupon === true) notYet("A service coupon", "$.apply_coupon");
  const seen = new Set<string>();
  input.checkouts.forEach((ref, i) => {
    const key = `${ref.store_slug}\n${ref.checkout_id}`;
    if (seen.has(key)) {
      throw new BridgeInputError("invalid_request", "The same checkout is listed twice", `$.checkouts[${i}]`);
    }
    seen.add(key);
  });

  const call = { credentials: platformCredentials(ctx), ...(ctx.headers ? { headers: ctx.headers } : {}) };
  const read = async (ref: { store_slug: string; checkout_id: string }) => {
    const answer = await ctx.shop.tool(
      storeMcpPath(ref.store_slug),
      "get_checkout",
      { id: ref.checkout_id },
      call,
    );
    const refused = businessError(answer.structuredContent);
    if (refused) throw Object.assign(new Error(refused.message), { toolError: refused });
    return answer.structuredContent as Checkout & Record<string, unknown>;
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
  if (input.payment_method === undefined) {
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

  // the buyer's allowance, fetched once with the buyer's bearer alone (seed §5 rule 1): every completion below
  // carries it as ap2.intent_mandate, so the service checks and debits it before any charge (DECISIONS B6)
  const intentMandate =
    input.payment_mandate_id !== undefined ? await allowanceOf(ctx, input.payment_mandate_id) : undefined;

  // 3. complete what is left, one checkout at a time
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
    if (!railsOf(checkout).includes("svc.card")) {
      results.push(
        failed(ref, { code: "unsupported_payment_method", message: "This store does not take cards" }),
      );
      continue;
    }
    try {
      const mandate = await checkoutMandate(checkout, ref.store_slug, ctx.signer);
      const instrument = {
        handler_id: "svc.card",
        selected: true,
        ...(input.pay_with ? { credential: { type: "stripe_token", token: input.pay_with } } : {}),
      };
      const answer = await ctx.shop.tool(
        storeMcpPath(ref.store_slug),
        "complete_checkout",
        {
          id: ref.checkout_id,
          checkout: {
            payment: { instruments: [instrument] },
            ap2: { checkout_mandate: mandate, ...(intentMandate ? { intent_mandate: intentMandate } : {}) },
          },
        },
        { ...call, mutates: true, idempotencyKey: newIdempotencyKey() },
      );
      const body = answer.structuredContent as Checkout & Record<string, unknown>;
      const refused = businessError(body);
      if (body.status === "completed" && body.order) {
        results.push({ ...ref, status: "completed", order: body.order, ...total(body) });
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
  const waiting = results.filter((r) => r.status === "requires_buyer_action").length;
  const status =
    done === results.length
      ? "completed"
      : waiting > 0 && done + waiting === results.length
        ? "requires_buyer_action"
        : done + waiting > 0
          ? "partial"
          : "failed";
  const message = {
    completed: "Every checkout is paid and has its order.",
    requires_buyer_action: "The buyer must finish paying at each continue_url.",
    partial:
      "Some checkouts are paid, others not (see each result's error). Fix them and call confirm_purchase again with the same checkouts: paid ones are not charged again.",
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
