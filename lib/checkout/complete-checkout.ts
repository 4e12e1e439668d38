import "server-only";

import { createHash, randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

import { getAgentProfile } from "@/lib/agents/agent-profile";
import { allowsPrivateFor } from "@/lib/agents/negotiate-agent";
import { finishPayment, refundUnplacedCardPayment } from "@/lib/checkout/completion/finish-payment";
import { getDb, type Db } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf, type OperationContext } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import { verifyCheckoutMandate } from "@/lib/mandates/verify-checkout-mandate";
import { cancelSuperseded, recordAttempt } from "@/lib/payments/attempts";
import type { ChargeOutcome } from "@/lib/payments/rail";
import { railFor } from "@/lib/payments/rails";
import { selectRail } from "@/lib/payments/select-rail";

import {
  continueUrlOf,
  draftOf,
  loadCheckoutOrThrow,
  renderCheckout,
  sameLines,
  saveCheckout,
  VersionConflict,
  type CheckoutRecord,
} from "./checkout-record";
import { offeredHandlers, priceCheckout, type StoredInstrument } from "./price-checkout";
import { CompleteCheckoutInputSchema, type CompleteCheckoutInput } from "./schemas";
import { checkoutToWire } from "./to-wire";

// complete_checkout (issue #5): re-price and re-check stock, verify the AP2 checkout mandate over the live terms,
// charge on the selected rail, place the order. Exactly once: a completed checkout returns its order; the
// provider idempotency key is derived from the checkout and its payment attempt (never from the request), so
// racing completions and retries after a crash reach the same PaymentIntent (one charge), and placeOrder is
// idempotent (one order). A decline opens the next attempt and leaves the session open.

const MAX_ATTEMPTS = 8;

/**
 * The provider idempotency key of one payment attempt of a checkout, for one amount and one payment method
 * (Stripe refuses a key reused with other parameters, so what is charged is part of the key).
 */
export const chargeKey = (
  checkoutId: string,
  attempt: number,
  amount: number,
  token: string | null,
): string =>
  `acs-${checkoutId}-a${attempt}-${amount}-${createHash("sha256")
    .update(token ?? "")
    .digest("base64url")
    .slice(0, 16)}`;

const stripCredentials = (instrument: CompleteCheckoutInput["payment"] extends infer P ? P : never) =>
  (instrument?.instruments ?? []).map((i, n): StoredInstrument => ({
    id: i.id ?? `pi_${n + 1}`,
    handler_id: i.handler_id,
    type: i.type ?? "card",
    selected: i.selected ?? false,
  }));

/** The card-payment row of the checkout (created on first completion; racing creators share it). */
const cardPaymentOf = async (db: Db, store: Store, checkoutId: string, amount: number, currency: string) => {
  const existing = await db.cardPayment.findUnique({ where: { checkoutId } });
  if (existing) return existing;
  try {
    return await db.cardPayment.create({
      data: { checkoutId, storeId: store.id, status: "pending", amount, currency },
    });
  } catch {
    return db.cardPayment.findUniqueOrThrow({ where: { checkoutId } });
  }
};

const finish = async (db: Db, ctx: OperationContext, id: string) => ({
  body: await withMerchantAuthorization(
    ctx,
    await renderCheckout(db, ctx, await loadCheckoutOrThrow(db, ctx, id)),
  ),
});

/** Moves the session to requires_escalation with a fresh hosted-payment token (keeps an existing one). */
const escalate = async (db: Db, session: CheckoutRecord) => {
  await db.checkoutSession.updateMany({
    where: {
      id: session.id,
      status: { in: ["complete_in_progress", "ready_for_complete", "requires_escalation"] },
    },
    data: {
      status: "requires_escalation",
      continueToken: session.continueToken ?? randomBytes(24).toString("base64url"),
      version: { increment: 1 },
    },
  });
};

export const completeCheckout = defineOperation({
  name: "complete_checkout",
  title: "Complete checkout",
  description:
    "Pay and place the order. Send payment.instruments[{ handler_id: 'svc.card', selected: true, credential: { type: 'stripe_token', token: 'pm_…' } }] and ap2.checkout_mandate (detached ES256 JWS over the checkout's mandate terms, key in your agent profile). Returns the completed checkout with order {id, permalink_url}; requires_escalation with continue_url when the buyer must act (3-DS or no card token); a decline leaves the session open.",
  scope: "store",
  input: CompleteCheckoutInputSchema,
  mutates: true,
  tier: "token",
  permission: "purchase:complete",
  mcp: {
    namespace: "checkout",
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  run: async (ctx, input: CompleteCheckoutInput) => {
    const db = await getDb();
    const store = storeOf(ctx);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const session = await loadCheckoutOrThrow(db, ctx, input.id);
      // exactly once: a completed checkout returns its order (DECISIONS B8)
      if (session.status === "completed") return finish(db, ctx, session.id);
      if (session.status === "canceled") {
        throw new AppError(
          "checkout_not_modifiable",
          `Checkout ${session.id} is canceled: it cannot be completed`,
          {
            path: "$.status",
          },
        );
      }
      const rail = selectRail(input.payment?.instruments ?? [], offeredHandlers(store));
      const adapter = railFor(rail.handlerId);
      if (!adapter) {
        throw new AppError(
          "rail_not_available",
          `${rail.handlerId} cannot complete checkouts yet: pay with svc.card`,
          {
            path:
              rail.index >= 0 ? `$.payment.instruments[${rail.index}].handler_id` : "$.payment.instruments",
          },
        );
      }
      // re-price and re-check stock on the live catalog; any blocker returns the checkout, nothing is charged
      const instruments = input.payment ? stripCredentials(input.payment) : draftOf(session).instruments;
      const draft = {
        ...draftOf(session),
        instruments: rail.instrument
          ? [{ ...instruments[Math.max(rail.index, 0)]!, selected: true }]
          : instruments,
      };
      const priced = await priceCheckout(db, store, draft, { now: ctx.now });
      const wire = checkoutToWire({ ...session, paymentInstruments: draft.instruments }, priced, {
        store,
        baseUrl: ctx.baseUrl,
        ucpVersion: ctx.ucpVersion,
        order: null,
      });
      if (priced.status !== "ready_for_complete") return { body: await withMerchantAuthorization(ctx, wire) };
      // AP2 checkout mandate over the live terms (B5): the key comes from the agent profile in UCP-Agent
      const profile = await getAgentProfile(ctx.agentProfile, { allowPrivate: allowsPrivateFor(store) });
      await verifyCheckoutMandate(input.ap2?.checkout_mandate, {
        terms: mandateTerms(wire, store.slug),
        signingKeys: (profile.signing_keys ?? []) as Record<string, unknown>[],
        now: ctx.now,
      });
      const amount = priced.totals.find((t) => t.type === "total")?.amount ?? 0;
      // the charged amounts are the stored ones: write the re-priced state and hold the session while charging
      const lines = priced.lines.map((l, position) => ({
        id: l.id,
        variantId: l.variant.id,
        quantity: l.quantity,
        priceMinor: l.unitPrice,
        position,
      }));
      try {
        await saveCheckout(db, {
          id: session.id,
          version: session.version,
          data: {
            status: "complete_in_progress",
            totals: priced.totals,
            paymentInstruments: draft.instruments,
            // the hosted link exists before the charge: it is the provider's return_url, stable across retries
            continueToken: session.continueToken ?? randomBytes(24).toString("base64url"),
          },
          lines: sameLines(session.lineItems, lines) ? null : lines,
        });
      } catch (error) {
        if (!(error instanceof VersionConflict)) throw error;
        await sleep(Math.floor(Math.random() * 5 * attempt));
        continue;
      }
      const payment = await cardPaymentOf(db, store, session.id, amount, session.currency);
      const token = rail.instrument?.credential?.token ?? null;
      const held = await db.checkoutSession.findUniqueOrThrow({
        where: { id: session.id },
        select: { continueToken: true },
      });
      if (payment.status === "refunding" && payment.paymentIntentId) {
        // a refund of an earlier attempt was interrupted: finish it (same key), then charge a new attempt
        await refundUnplacedCardPayment(db, store, session.id, payment.paymentIntentId, adapter);
        continue;
      }
      let outcome: ChargeOutcome;
      try {
        // a payment of this attempt that already succeeded (hosted page, a lost response) is finished without
        // charging again
        const known =
          payment.paymentIntentId && payment.status !== "declined" && payment.status !== "refunded"
            ? await adapter.retrieve(store, payment.paymentIntentId)
            : null;
        outcome =
          known?.kind === "succeeded"
            ? known
            : await adapter.charge({
                store,
                checkoutId: session.id,
                amount,
                currency: session.currency,
                token,
                idempotencyKey: chargeKey(session.id, payment.attempt, amount, token),
                returnUrl: continueUrlOf(store, ctx.baseUrl, held.continueToken ?? ""),
              });
      } catch (error) {
        // nothing charged: reopen the session for another try
        await db.checkoutSession.updateMany({
          where: { id: session.id, status: "complete_in_progress" },
          data: { status: "ready_for_complete", version: { increment: 1 } },
        });
        throw error;
      }
      // fault injection for the crash test: die after the provider charged, before we recorded the PaymentIntent
      if (getEnv().ACS_FAULT === "crash-after-provider" && outcome.kind === "succeeded") process.exit(137);
      await db.cardPayment.updateMany({
        where: { checkoutId: session.id, attempt: payment.attempt },
        data: {
          status: outcome.kind === "declined" ? "declined" : outcome.kind,
          paymentIntentId: outcome.paymentRef,
          amount,
        },
      });
      if (outcome.paymentRef) {
        // B12: this payment becomes the checkout's one current attempt (a decline never supersedes a payment
        // racing it); the previous one is canceled at the provider, or left to the sweep when it cannot be
        const { superseded } = await recordAttempt(db, {
          checkoutId: session.id,
          storeId: store.id,
          rail: rail.handlerId,
          providerRef: outcome.paymentRef,
          amount,
          currency: session.currency,
          state: outcome.kind,
          current: outcome.kind !== "declined",
        });
        await cancelSuperseded(db, store, adapter, superseded);
      }
      if (outcome.kind === "succeeded") {
        // fault injection for the crash test (scripts/crash-test-card.ts): die after the charge, before the order
        if (getEnv().ACS_FAULT === "crash-after-charge") process.exit(137);
        let finished;
        try {
          // the one finisher: places the order, or refunds this payment when another one paid for the checkout
          finished = await finishPayment(db, store, session.id, outcome.paymentRef, {
            now: ctx.now,
            rail: adapter,
          });
        } catch (error) {
          // a racing completion moved the version: go round again (the charge replays, the order is placed once)
          if (error instanceof AppError && error.code === "conflict") continue;
          throw error;
        }
        if (finished.result === "refunded" && finished.cause?.code === "out_of_stock") {
          // another order took the last units between the re-price and the order: the money was given back
          throw new AppError("out_of_stock", `${finished.cause.message}; the payment was refunded`, {
            ...(finished.cause.path ? { path: finished.cause.path } : {}),
          });
        }
        const now = await db.checkoutSession.findUniqueOrThrow({
          where: { id: session.id },
          select: { status: true },
        });
        if (finished.result !== "order_placed" && now.status !== "completed") {
          // this payment was superseded by another attempt still under way and has been refunded in full
          throw new AppError(
            "conflict",
            `Another payment of checkout ${session.id} is under way; this one was refunded. Read the checkout`,
          );
        }
        return finish(db, ctx, session.id);
      }
      if (outcome.kind === "declined") {
        // the next attempt gets a new provider key (another card may be tried); the session reopens
        await db.cardPayment.updateMany({
          where: { checkoutId: session.id, attempt: payment.attempt },
          data: { attempt: { increment: 1 } },
        });
        await db.checkoutSession.updateMany({
          where: { id: session.id, status: "complete_in_progress" },
          data: { status: "ready_for_complete", version: { increment: 1 } },
        });
        const { body } = await finish(db, ctx, session.id);
        // a good card racing this one already completed the checkout: answer completed, never beside an error
        // inviting another payment (an agent obeying it would pay twice)
        if (body.status === "completed") return { body };
        const messages = [
          ...(body.messages as object[]),
          {
            type: "error",
            code: "payment_failed",
            content: `The payment failed: ${outcome.reason}. Complete again with another card`,
            severity: "recoverable",
            path: rail.index >= 0 ? `$.payment.instruments[${rail.index}]` : "$.payment",
          },
        ];
        return { body: await withMerchantAuthorization(ctx, { ...body, messages }) };
      }
      await escalate(
        db,
        (await db.checkoutSession.findUniqueOrThrow({
          where: { id: session.id },
          include: { lineItems: true },
        })) as CheckoutRecord,
      );
      return finish(db, ctx, session.id);
    }
    throw new AppError(
      "conflict",
      `Checkout ${input.id} kept changing while completing; retry the completion`,
    );
  },
});
