import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { defineOperation } from "@/lib/core/operation";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import { CheckoutOutputSchema } from "@/lib/ucp/output-schemas";

import { loadCheckoutOrThrow, renderCheckout } from "./checkout-record";
import { CheckoutIdInputSchema } from "./schemas";

/**
 * get_checkout / GET /s/<slug>/checkout-sessions/<id>: an open session re-priced live with its full preflight;
 * a terminal one in its final state. @throws AppError not_found
 */
export const getCheckout = defineOperation({
  name: "get_checkout",
  title: "Get checkout",
  description:
    "Read a checkout session of this store by id: live prices and stock, totals, status and every blocker in messages[]. Call it before complete_checkout (status must be ready_for_complete) and after a completion that timed out, to see whether the order was placed (order.id).",
  errors: ["not_found"],
  scope: "store",
  input: CheckoutIdInputSchema,
  output: CheckoutOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input) => {
    const db = await getDb();
    const body = await renderCheckout(db, ctx, await loadCheckoutOrThrow(db, ctx, input.id), {
      forRead: true,
    });
    return { body: await withMerchantAuthorization(ctx, body) };
  }),
});
