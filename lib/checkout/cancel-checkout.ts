import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import { releaseSpend } from "@/lib/mandates/spend-ledger";
import { CheckoutOutputSchema } from "@/lib/ucp/output-schemas";

import { loadCheckoutOrThrow, renderCheckout } from "./checkout-record";
import { CheckoutIdInputSchema } from "./schemas";
import { assertModifiable, moveCheckout } from "./state";

/** Optimistic retries when a concurrent update moves the version between the read and the write. */
const MAX_ATTEMPTS = 5;

/**
 * cancel_checkout / POST /s/<slug>/checkout-sessions/<id>/cancel (no body): any non-terminal session becomes
 * `canceled`, which is final (seed §3: cancel cannot be undone). Canceling a completed or canceled session is
 * refused. @throws AppError not_found, checkout_not_modifiable, conflict
 */
export const cancelCheckout = defineOperation({
  name: "cancel_checkout",
  title: "Cancel checkout",
  description:
    "Cancel a checkout session. Final: a canceled session cannot be updated, canceled or completed; create a new checkout to buy again. Returns the checkout with status canceled.",
  errors: ["not_found", "checkout_not_modifiable", "conflict"],
  scope: "store",
  input: CheckoutIdInputSchema,
  output: CheckoutOutputSchema,
  mutates: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input) => {
    const db = await getDb();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const session = await loadCheckoutOrThrow(db, ctx, input.id);
      assertModifiable(session.id, session.status, "cancel");
      const count = await moveCheckout(db, { id: session.id, version: session.version, to: "canceled" });
      // a concurrent update moved the version: read again (a completion meanwhile makes it not modifiable)
      if (count === 1) {
        // no order can follow: what the buyer's allowance held for it goes back at once (DECISIONS B6)
        await releaseSpend(db, { checkoutId: session.id });
        const body = await renderCheckout(db, ctx, { ...session, status: "canceled" });
        return { body: await withMerchantAuthorization(ctx, body) };
      }
    }
    throw new AppError("conflict", `Checkout ${input.id} kept changing while canceling; retry the cancel`);
  }),
});
