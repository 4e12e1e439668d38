import "server-only";

import { setTimeout as sleep } from "node:timers/promises";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb, type Db } from "@/lib/config/db";
import { AppError, toAppError } from "@/lib/core/errors";
import { defineOperation, storeOf, type OperationContext } from "@/lib/core/operation";
import { couponOffOrThrow } from "@/lib/coupons/redeem";
import type { Store } from "@/lib/generated/prisma/client";
import { isNoRoom, spenderOfCheckout } from "@/lib/mandates/buyer-spend";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import { isTransactionDigest } from "@/lib/payments/crypto/verify-digest";
import { railFor } from "@/lib/payments/rails";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { CheckoutOutputSchema } from "@/lib/ucp/output-schemas";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { continueUrlOf, loadCheckoutOrThrow } from "../checkout-record";
import { assertBuyerAlone } from "../crypto/prepare-checkout-payment";
import { CompleteCheckoutInputSchema, type CompleteCheckoutInput } from "../schemas";
import { moveCheckout } from "../state";
import {
  answerBuyerStep,
  answerCryptoSettlement,
  answerDecline,
  answerSuccess,
  renderFinal,
} from "./answer-outcome";
import { whileCharging } from "./charges-under-way";
import { chooseRail } from "./choose-rail";
import { holdSession } from "./hold-session";
import { priceForCompletion } from "./price-for-completion";
import { preparedPaymentFor, settleCrypto } from "./settle-crypto";
import { startAttempt } from "./start-attempt";
import { verifyIntentMandate } from "./verify-intent-mandate";
import { verifyMandate } from "./verify-mandate";

export { chargeKey } from "./start-attempt";

// complete_checkout: a list of steps, one file each —
//   1. a completed checkout returns its order (exactly once, DECISIONS B8); a canceled one is refused
//   2. choose the rail (choose-rail.ts)
//   3. re-price and re-check stock on the live catalog; any blocker returns the checkout, nothing is charged
//      (price-for-completion.ts)
//   4. verify the AP2 checkout mandate over the live terms (verify-mandate.ts)
//   5. hold the session (complete_in_progress) at the re-priced amounts (hold-session.ts)
//   6. start or reuse the payment attempt and settle it with the agent's credential (start-attempt.ts)
//   7. answer the outcome: success → the one finisher places the order or refunds (finish-payment.ts);
//      decline → payment_failed; buyer step → requires_escalation (answer-outcome.ts)
// Racing completions and retries reach the same provider payment (the key derives from the checkout and its
// attempt, never from the request) and the same order.

const MAX_ATTEMPTS = 8;

/**
 * A crypto digest handed in for a checkout that already has its order: when it is another payment of the buyer
 * (the newer prepare signed too, or a re-gassed copy), what reached the merchant is judged and recorded as owed back
 * to the buyer — the finisher refunds it as it refunds any extra payment — and the answer stays the completed
 * checkout. Nothing else changes; a digest that is the order's own payment, or not a payment of this buyer, moves
 * nothing.
 */
const judgeExtraCryptoPayment = async (
  db: Db,
  ctx: OperationContext,
  store: Store,
  checkoutId: string,
  input: CompleteCheckoutInput,
): Promise<void> => {
  const index = (input.payment?.instruments ?? []).findIndex((i) => i.handler_id === RAIL_HANDLER_IDS.crypto);
  const digest = index >= 0 ? input.payment?.instruments?.[index]?.credential?.token : undefined;
  if (!digest || ctx.principal.kind !== "buyer" || !isTransactionDigest(digest)) return;
  const order = await db.order.findUnique({ where: { checkoutId }, select: { paymentRef: true } });
  const rail = railFor(RAIL_HANDLER_IDS.crypto);
  if (!order || order.paymentRef === digest || !rail) return;
  await settleCrypto(db, {
    store,
    checkoutId,
    digest,
    rail,
    now: ctx.now,
    path: `$.payment.instruments[${index}].credential.token`,
  });
};

export const completeCheckout = defineOperation({
  name: "complete_checkout",
  title: "Complete checkout",
  description:
    "Pay and place the order (moves the buyer's money) once get_checkout shows ready_for_complete and the buyer agreed to the total. Card: payment.instruments[{ handler_id: 'svc.card', selected: true, credential: { type: 'stripe_token', token: 'pm_…' } }] and ap2.checkout_mandate (detached ES256 JWS). Crypto (the buyer's bearer alone), after prepare_checkout_payment and the wallet signing: credential { type: 'token', token: '<digest>' }, ap2.checkout_mandate and ap2.intent_mandate (get_intent_mandate); payment_pending: retry with the SAME digest, never pay again. Answers completed with order {id, permalink_url}, or requires_escalation with continue_url for the buyer. After a timeout retry with the same idempotency key.",
  errors: [
    "not_found",
    "checkout_not_modifiable",
    "out_of_stock",
    "payment_selection_required",
    "unknown_payment_handler",
    "multiple_payment_selections",
    "rail_not_available",
    "capabilities_incompatible",
    "mandate_required",
    "mandate_invalid_signature",
    "mandate_expired",
    "spend_cap_exceeded",
    "allowance_paused",
    "coupon_used",
    "coupon_exceeds_total",
    "mandate_revoked",
    "identity_required",
    "mandate_scope_mismatch",
    "agent_missing_key",
    "payment_failed",
    "payment_provider_error",
    "conflict",
  ],
  scope: "store",
  input: CompleteCheckoutInputSchema,
  output: CheckoutOutputSchema,
  mutates: true,
  idempotency: "in-write",
  // it reads its store fresh itself, with its session, before anything that moves money (run, step 1)
  storeFromCache: true,
  tier: "token",
  buyerScope: "purchase:complete",
  permission: "purchase:complete",
  mcp: {
    namespace: "checkout",
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  },
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input: CompleteCheckoutInput) => {
    const db = await getDb();
    // The idempotency key ("in-write", lib/idempotency/with-idempotency.ts): a platform's unbound card purchase
    // writes nothing before its hold, which claims the key with it, before the charge. Every other completion may
    // write before its hold (a buyer's binding, a crypto payment judged, the allowance's reservation): the key is
    // claimed first, before any of it. A completion that writes nothing (a completed checkout's answer, a refusal
    // before the hold) has its answer recorded after it.
    if (ctx.principal.kind === "buyer") await ctx.idempotency?.claim();
    for (let round = 1; round <= MAX_ATTEMPTS; round++) {
      // 1. (a buyer's completion, on any rail, binds a platform-key checkout to that buyer and agent: B17, and so
      // makes it the buyer's spend, B20; the shipping rates step 3 prices with are read fresh with the session)
      const session = await loadCheckoutOrThrow(db, ctx, input.id, {
        bindBuyer: true,
        withRates: true,
        forPayment: true,
      });
      // the store this completion pays in, read fresh with the session (its mode decides where the money goes,
      // its rails and tax rate what is charged: lib/stores/get-store-or-throw.ts); until this read the call used
      // the cached one (`storeFromCache`), which chose nothing that moves money. Every step from here on, the
      // answer's rendering included, sees this one (a session a buyer's binding just found is read back with it).
      const store = session.store ?? (await getStoreOrThrow(storeOf(ctx).slug));
      ctx.store = store;
      if (session.status === "completed") {
        await judgeExtraCryptoPayment(db, ctx, store, session.id, input);
        return renderFinal(db, ctx, session.id);
      }
      if (session.status === "canceled") {
        throw new AppError(
          "checkout_not_modifiable",
          `Checkout ${session.id} is canceled: it cannot be completed`,
          { path: "$.status" },
        );
      }
      // 2.
      const { rail, adapter } = chooseRail(store, input.payment);
      // 3.
      const priced = await priceForCompletion(db, ctx, store, session, rail, input.payment);
      if (priced.priced.status !== "ready_for_complete") {
        return { body: await withMerchantAuthorization(ctx, priced.wire) };
      }
      // 4. (crypto with a digest also: the buyer's bearer alone and the buyer's allowance over this order;
      // without one the buyer signs on the wallet page, where they approve the payment themselves). The allowance
      // is reserved on the spend ledger here, before any charge; the order's transaction debits it.
      const crypto = rail.handlerId === RAIL_HANDLER_IDS.crypto;
      if (crypto || spenderOfCheckout(session) || input.ap2?.intent_mandate) await ctx.idempotency?.claim();
      const digest = crypto ? (rail.instrument?.credential?.token ?? null) : null;
      if (digest) assertBuyerAlone(ctx, "A crypto completion");
      await verifyMandate(ctx, store, priced.wire, input.ap2?.checkout_mandate, session.mandateTermsHistory);
      // (a refused digest — not one, or nothing prepared for it — changes nothing: checked before the hold)
      const digestPath = `$.payment.instruments[${Math.max(rail.index, 0)}].credential.token`;
      const prepared = digest ? await preparedPaymentFor(db, session.id, digest, digestPath) : undefined;
      if (digest || !crypto) {
        await verifyIntentMandate(db, ctx, {
          store,
          session,
          priced: priced.priced,
          encoded: input.ap2?.intent_mandate,
          rail: crypto ? "crypto" : "card",
        }).catch((error: unknown) => {
          // a crypto payment may have landed already: it cannot be refused back to the wallet, so when the agent
          // named no allowance, room is decided where its order would be placed — the order, or the buyer's
          // approval (DECISIONS B20), never a refusal here followed by an order later. An allowance the agent
          // named is judged as sent.
          if (digest && !input.ap2?.intent_mandate && isNoRoom(error)) return null;
          throw error;
        });
      }
      // (a service coupon the buyer's agent applied takes its amount off the card charge, DECISIONS B16; the
      // order's transaction redeems it. Checked on the live total before anything is held or charged.)
      const total = priced.priced.totals.find((t) => t.type === "total")?.amount ?? 0;
      const couponOff = crypto
        ? 0
        : await couponOffOrThrow(db, session, total).catch(async (thrown: unknown) => {
            // a concurrent completion of this same checkout placed the order and redeemed the coupon since this
            // one read the checkout: the next round finds the order and answers with it (never "coupon used")
            if (toAppError(thrown).code !== "coupon_used") throw thrown;
            const placed = await db.order.findUnique({
              where: { checkoutId: session.id },
              select: { id: true },
            });
            if (!placed) throw thrown;
            return null;
          });
      if (couponOff === null) continue;
      // 5. (a card completion's first hold creates the card payment with it: written before the charge)
      const hold = await holdSession(
        db,
        session,
        priced,
        ctx.idempotency,
        !crypto && session.hasCardPayment === false
          ? { storeId: store.id, amount: total - couponOff, currency: session.currency }
          : undefined,
      );
      if (hold.kind === "changed") {
        await sleep(Math.floor(Math.random() * 5 * round));
        continue;
      }
      // 6. (crypto: the digest the buyer's wallet produced settles the prepared payment)
      if (crypto) {
        if (!digest) return answerBuyerStep(db, ctx, session.id);
        const settled = await settleCrypto(db, {
          store,
          checkoutId: session.id,
          digest,
          rail: adapter,
          now: ctx.now,
          path: digestPath,
          ref: prepared?.ref,
          row: prepared?.row,
          withCheckout: true,
        });
        return answerCryptoSettlement(db, ctx, session.id, settled, rail.index);
      }
      // 6.–7. as this process's charge of the checkout: a webhook of its payment waits for it (charges-under-way.ts)
      const charged = await whileCharging(session.id, async (placed) => {
        let started;
        try {
          started = await startAttempt(db, {
            store,
            checkoutId: session.id,
            handlerId: rail.handlerId,
            adapter,
            amount: hold.amount - couponOff,
            currency: session.currency,
            token: rail.instrument?.credential?.token ?? null,
            returnUrl: continueUrlOf(store, ctx.baseUrl, hold.continueToken),
            created: hold.created,
          });
        } catch (error) {
          // nothing charged: reopen the session for another try
          if (error instanceof AppError && error.code === "payment_provider_error") {
            await moveCheckout(db, {
              id: session.id,
              from: ["complete_in_progress"],
              to: "ready_for_complete",
            });
          }
          throw error;
        }
        if (started.kind === "retry" || started.outcome.kind !== "succeeded") return { started };
        const answer = await answerSuccess(db, ctx, {
          store,
          checkoutId: session.id,
          paymentRef: started.outcome.paymentRef,
          adapter,
          method: started.outcome.method,
          attempt: started.attempt,
          onPlaced: placed,
        });
        return { started, answer };
      });
      if (charged.answer === "retry") continue;
      if (charged.answer) return charged.answer;
      const { started } = charged;
      if (started.kind === "retry") continue;
      // 7.
      const { outcome } = started;
      if (outcome.kind === "declined") {
        return answerDecline(db, ctx, {
          checkoutId: session.id,
          reason: outcome.reason,
          instrumentIndex: rail.index,
        });
      }
      return answerBuyerStep(db, ctx, session.id);
    }
    throw new AppError(
      "conflict",
      `Checkout ${input.id} kept changing while completing; retry the completion`,
    );
  }),
});
