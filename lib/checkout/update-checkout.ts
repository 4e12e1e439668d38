import "server-only";

import { setTimeout as sleep } from "node:timers/promises";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import { recordTerms } from "@/lib/mandates/terms-history";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { CheckoutOutputSchema } from "@/lib/ucp/output-schemas";

import { applyRequest } from "./apply-request";
import {
  draftOf,
  lineRowsOf,
  loadCheckoutOrThrow,
  sameLines,
  saveCheckout,
  VersionConflict,
} from "./checkout-record";
import { priceCheckout } from "./price-checkout";
import { rememberAddresses } from "./saved-addresses";
import { UpdateCheckoutInputSchema, type UpdateCheckoutInput } from "./schemas";
import { assertModifiable } from "./state";
import { checkoutToWire } from "./to-wire";

/** Optimistic retries before giving up with `conflict` (each retry re-reads and re-applies the request). */
const MAX_ATTEMPTS = 8;

/**
 * update_checkout / PUT /s/<slug>/checkout-sessions/<id>. Omitted fields are unchanged; sent fields replace the
 * stored ones (buyer merges field by field). Re-prices, re-runs the preflight and moves the status between
 * incomplete and ready_for_complete. Concurrent updates never lose one another (optimistic version check).
 * @throws AppError not_found, checkout_not_modifiable, invalid_request, conflict
 */
export const updateCheckout = defineOperation({
  name: "update_checkout",
  title: "Update checkout",
  description:
    "Update a checkout session: line_items, buyer, fulfillment (or shipping_address / shipping_method_id), discounts.codes (replaces the set; [] clears), payment.instruments, notes. Omitted fields stay as they are. Returns the checkout with every remaining blocker in messages[] (path = the field to fix); when none is left, status is ready_for_complete and complete_checkout is next.",
  errors: ["not_found", "checkout_not_modifiable", "item_unavailable", "conflict"],
  scope: "store",
  input: UpdateCheckoutInputSchema,
  output: CheckoutOutputSchema,
  mutates: true,
  idempotency: "in-write",
  storeFromCache: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "checkout",
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input: UpdateCheckoutInput) => {
    const db = await getDb();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const session = await loadCheckoutOrThrow(db, ctx, input.id);
      assertModifiable(session.id, session.status, "update");
      // the store and the shipping rates may be up to the row cache's bound old (the completion prices again on
      // fresh ones), except for a session whose payment is under way (the buyer's step): that one is priced fresh
      const held = session.status === "requires_escalation";
      const store = held ? await getStoreOrThrow(storeOf(ctx).slug) : storeOf(ctx);
      const stored = draftOf(session);
      const { draft, save } = await rememberAddresses(
        store,
        ctx.principal.id,
        stored,
        applyRequest(store, stored, input),
        input,
      );
      const keepStatus = held ? { status: session.status } : {};
      const priced = await priceCheckout(db, store, draft, {
        now: ctx.now,
        ratesForRead: !held,
        ...keepStatus,
      });
      const body = checkoutToWire(
        {
          ...session,
          buyer: draft.buyer,
          fulfillment: draft.fulfillment,
          notes: input.notes ?? session.notes,
          context: input.context ?? session.context,
          attribution: input.attribution ?? session.attribution,
          paymentInstruments: draft.instruments,
        },
        priced,
        { store, baseUrl: ctx.baseUrl, ucpVersion: ctx.ucpVersion, order: null },
      );
      const data = {
        mandateTermsHistory: recordTerms(session.mandateTermsHistory, mandateTerms(body, store.slug)),
        buyer: draft.buyer ?? undefined,
        fulfillment: draft.fulfillment,
        discountCodes: priced.discounts.codes,
        paymentInstruments: draft.instruments,
        totals: priced.totals,
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        ...(input.context !== undefined ? { context: input.context as object } : {}),
        ...(input.attribution !== undefined ? { attribution: input.attribution } : {}),
      };
      const lines = lineRowsOf(priced.lines);
      const answer = { body: await withMerchantAuthorization(ctx, body) };
      try {
        await saveCheckout(
          db,
          {
            id: session.id,
            version: session.version,
            status: priced.status,
            data,
            lines: sameLines(session.lineItems, lines) ? null : lines,
          },
          ctx.idempotency && { handle: ctx.idempotency, answer },
        );
      } catch (error) {
        if (!(error instanceof VersionConflict)) throw error;
        await sleep(Math.floor(Math.random() * 5 * attempt));
        continue;
      }
      await save();
      return answer;
    }
    throw new AppError("conflict", `Checkout ${input.id} is being updated concurrently; retry the update`);
  }),
});
