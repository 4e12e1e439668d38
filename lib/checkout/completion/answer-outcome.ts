import "server-only";

import { randomBytes } from "node:crypto";

import type { Db } from "@/lib/config/db";
import { faultPoint } from "@/lib/config/fault-point";
import { AppError } from "@/lib/core/errors";
import type { OperationContext } from "@/lib/core/operation";
import type { PaymentAttempt, Store } from "@/lib/generated/prisma/client";
import { isNoRoom } from "@/lib/mandates/buyer-spend";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import type { PaymentMethodSummary, PaymentRail } from "@/lib/payments/rail";

import { loadCheckoutOrThrow, renderCheckout, type CheckoutRecord } from "../checkout-record";
import { moveCheckout } from "../state";
import type { PlacedPayment } from "./charges-under-way";
import { finishPayment } from "./finish-payment";
import type { CryptoSettlement } from "./settle-crypto";

// Step: what the completing call answers for the provider's outcome of its attempt. A success goes through the
// one finisher (order, or a full refund when another payment paid); a decline reopens the session with
// payment_failed — never beside `completed`; a buyer step escalates with the hosted link.

export type CompletionAnswer = { body: Record<string, unknown> };

/**
 * The checkout as it now stands, rendered for this caller. `orderId`: the order the finisher just placed for it
 * (a checkout has one order at most), so the render does not look it up again; `completed`: the checkout as that
 * order's transaction completed it (a completed checkout changes no more), so it is not read again either.
 */
export const renderFinal = async (
  db: Db,
  ctx: OperationContext,
  id: string,
  { orderId, completed }: { orderId?: string; completed?: CheckoutRecord } = {},
): Promise<CompletionAnswer> => ({
  body: await withMerchantAuthorization(
    ctx,
    await renderCheckout(db, ctx, completed ?? (await loadCheckoutOrThrow(db, ctx, id)), { orderId }),
  ),
});

/**
 * A succeeded payment: the finisher places the order or refunds it. `retry`: a racing completion moved the
 * version (go round again: the charge replays, the order is placed once).
 * @throws AppError out_of_stock (the payment was refunded), conflict (this payment was superseded by another
 *   still under way and refunded)
 */
export const answerSuccess = async (
  db: Db,
  ctx: OperationContext,
  input: {
    store: Store;
    checkoutId: string;
    paymentRef: string;
    adapter: PaymentRail;
    method?: PaymentMethodSummary;
    /** The payment's attempt as the completion just recorded it (the finisher's first read). */
    attempt?: PaymentAttempt;
    /** Told when the finisher placed (or found) the order paid with this payment. */
    onPlaced?: (payment: PlacedPayment) => void;
  },
): Promise<CompletionAnswer | "retry"> => {
  // the crash test's moment (scripts/crash-test-card.ts): the charge is recorded, the order is not placed yet
  faultPoint("crash-after-charge");
  let finished;
  try {
    finished = await finishPayment(db, input.store, input.checkoutId, input.paymentRef, {
      now: ctx.now,
      rail: input.adapter,
      method: input.method,
      attempt: input.attempt,
      withCheckout: true,
    });
  } catch (error) {
    if (error instanceof AppError && error.code === "conflict") return "retry";
    throw error;
  }
  if (finished.result === "order_placed") {
    input.onPlaced?.({ storeId: input.store.id, paymentRef: input.paymentRef });
  }
  if (
    finished.result === "refunded" &&
    (finished.cause?.code === "out_of_stock" || isNoRoom(finished.cause))
  ) {
    // another order took the last units between the re-price and the order, or the buyer's allowance no longer
    // had room when the order was placed (DECISIONS B20): the money was given back
    throw new AppError(finished.cause.code, `${finished.cause.message}; the payment was refunded`, {
      ...(finished.cause.path ? { path: finished.cause.path } : {}),
      ...(finished.cause.details ? { details: finished.cause.details } : {}),
    });
  }
  const answer = await renderFinal(
    db,
    ctx,
    input.checkoutId,
    finished.result === "order_placed" ? { orderId: finished.orderId, completed: finished.checkout } : {},
  );
  if (finished.result !== "order_placed" && answer.body.status !== "completed") {
    // this payment was superseded by another attempt still under way, and refunded in full
    throw new AppError(
      "conflict",
      `Another payment of checkout ${input.checkoutId} is under way; this one was refunded. Read the checkout`,
    );
  }
  return answer;
};

/** A declined payment: the session reopens with a recoverable payment_failed (B18: the provider's reason). */
export const answerDecline = async (
  db: Db,
  ctx: OperationContext,
  input: { checkoutId: string; reason: string; instrumentIndex: number; retryHint?: string },
): Promise<CompletionAnswer> => {
  await moveCheckout(db, { id: input.checkoutId, from: ["complete_in_progress"], to: "ready_for_complete" });
  const { body } = await renderFinal(db, ctx, input.checkoutId);
  // a good card racing this one already completed the checkout: answer completed, never beside an error
  // inviting another payment (an agent obeying it would pay twice)
  if (body.status === "completed") return { body };
  const messages = [
    ...(body.messages as object[]),
    {
      type: "error",
      code: "payment_failed",
      content: `The payment failed: ${input.reason}. ${input.retryHint ?? "Complete again with another card"}`,
      severity: "recoverable",
      path: input.instrumentIndex >= 0 ? `$.payment.instruments[${input.instrumentIndex}]` : "$.payment",
    },
  ];
  return { body: await withMerchantAuthorization(ctx, { ...body, messages }) };
};

/** The buyer must act (3-DS, no card token): requires_escalation with the hosted link (kept when it exists). */
export const answerBuyerStep = async (
  db: Db,
  ctx: OperationContext,
  checkoutId: string,
): Promise<CompletionAnswer> => {
  const { continueToken } = await db.checkoutSession.findUniqueOrThrow({
    where: { id: checkoutId },
    select: { continueToken: true },
  });
  await moveCheckout(db, {
    id: checkoutId,
    to: "requires_escalation",
    data: { continueToken: continueToken ?? randomBytes(24).toString("base64url") },
  });
  return renderFinal(db, ctx, checkoutId);
};

/**
 * What a crypto completion answers: the completed checkout; the checkout still complete_in_progress with a
 * payment_pending message carrying the digest (retry with it; never an invitation to pay again); or payment_failed
 * with why (the money owed back, when some arrived).
 */
export const answerCryptoSettlement = async (
  db: Db,
  ctx: OperationContext,
  checkoutId: string,
  settled: CryptoSettlement,
  instrumentIndex: number,
): Promise<CompletionAnswer> => {
  // a payment waiting for the buyer's approval: the checkout is requires_escalation with its message and link
  if (settled.kind === "order_placed") {
    // the order's transaction just completed the checkout: rendered from what it wrote, as a card completion is
    return renderFinal(db, ctx, checkoutId, { orderId: settled.orderId, completed: settled.checkout });
  }
  if (settled.kind === "awaiting_approval") return renderFinal(db, ctx, checkoutId);
  if (settled.kind === "failed") {
    return answerDecline(db, ctx, {
      checkoutId,
      reason: settled.reason,
      instrumentIndex,
      retryHint: "Prepare the payment again (payment-intent) and have the buyer sign the new transaction",
    });
  }
  const { body } = await renderFinal(db, ctx, checkoutId);
  if (body.status === "completed") return { body };
  const messages = [
    ...(body.messages as object[]),
    {
      type: "info",
      code: "payment_pending",
      content: `Transaction ${settled.digest} is not final on the chain yet. Do not pay again: call complete_checkout again with the same digest in a few seconds, or read the checkout (it completes by itself once the transaction is final)`,
      path: instrumentIndex >= 0 ? `$.payment.instruments[${instrumentIndex}].credential.token` : "$.payment",
    },
  ];
  return { body: await withMerchantAuthorization(ctx, { ...body, messages }) };
};
