import "server-only";

import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";

import {
  continueUrlOf,
  draftOf,
  loadCheckoutOrThrow,
  sameLines,
  saveCheckout,
  VersionConflict,
} from "../checkout-record";
import { priceCheckout, type StoredInstrument } from "../price-checkout";
import { CompleteCheckoutInputSchema, type CompleteCheckoutInput } from "../schemas";
import { moveCheckout } from "../state";
import { checkoutToWire } from "../to-wire";
import { answerBuyerStep, answerDecline, answerSuccess, renderFinal } from "./answer-outcome";
import { chooseRail } from "./choose-rail";
import { startAttempt } from "./start-attempt";
import { verifyMandate } from "./verify-mandate";

export { chargeKey } from "./start-attempt";

// complete_checkout: a list of steps, one file each —
//   1. a completed checkout returns its order (exactly once, DECISIONS B8); a canceled one is refused
//   2. choose the rail (choose-rail.ts)
//   3. re-price and re-check stock on the live catalog; any blocker returns the checkout, nothing is charged
//   4. verify the AP2 checkout mandate over the live terms (verify-mandate.ts)
//   5. hold the session (complete_in_progress) at the re-priced amounts
//   6. start or reuse the payment attempt and settle it with the agent's credential (start-attempt.ts)
//   7. answer the outcome: success → the one finisher places the order or refunds (finish-payment.ts);
//      decline → payment_failed; buyer step → requires_escalation (answer-outcome.ts)
// Racing completions and retries reach the same provider payment (the key derives from the checkout and its
// attempt, never from the request) and the same order.

const MAX_ATTEMPTS = 8;

const stripCredentials = (payment: NonNullable<CompleteCheckoutInput["payment"]>) =>
  (payment.instruments ?? []).map((i, n): StoredInstrument => ({
    id: i.id ?? `pi_${n + 1}`,
    handler_id: i.handler_id,
    type: i.type ?? "card",
    selected: i.selected ?? false,
  }));

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
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input: CompleteCheckoutInput) => {
    const db = await getDb();
    const store = storeOf(ctx);
    for (let round = 1; round <= MAX_ATTEMPTS; round++) {
      // 1.
      const session = await loadCheckoutOrThrow(db, ctx, input.id);
      if (session.status === "completed") return renderFinal(db, ctx, session.id);
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
      // 4.
      await verifyMandate(ctx, store, wire, input.ap2?.checkout_mandate);
      // 5. the charged amounts are the stored ones; the hosted link exists before the charge (it is the
      // provider's return_url, stable across retries)
      const amount = priced.totals.find((t) => t.type === "total")?.amount ?? 0;
      const lines = priced.lines.map((l, position) => ({
        id: l.id,
        variantId: l.variant.id,
        quantity: l.quantity,
        priceMinor: l.unitPrice,
        position,
      }));
      const continueToken = session.continueToken ?? randomBytes(24).toString("base64url");
      try {
        await saveCheckout(db, {
          id: session.id,
          version: session.version,
          status: "complete_in_progress",
          data: { totals: priced.totals, paymentInstruments: draft.instruments, continueToken },
          lines: sameLines(session.lineItems, lines) ? null : lines,
        });
      } catch (error) {
        if (!(error instanceof VersionConflict)) throw error;
        await sleep(Math.floor(Math.random() * 5 * round));
        continue;
      }
      // 6.
      const held = await db.checkoutSession.findUniqueOrThrow({
        where: { id: session.id },
        select: { continueToken: true },
      });
      let started;
      try {
        started = await startAttempt(db, {
          store,
          checkoutId: session.id,
          handlerId: rail.handlerId,
          adapter,
          amount,
          currency: session.currency,
          token: rail.instrument?.credential?.token ?? null,
          returnUrl: continueUrlOf(store, ctx.baseUrl, held.continueToken ?? continueToken),
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
      if (started.kind === "retry") continue;
      // 7.
      const { outcome } = started;
      if (outcome.kind === "succeeded") {
        const answer = await answerSuccess(db, ctx, {
          store,
          checkoutId: session.id,
          paymentRef: outcome.paymentRef,
          adapter,
          method: outcome.method,
        });
        if (answer === "retry") continue;
        return answer;
      }
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
