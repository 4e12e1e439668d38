import "server-only";

import { findAgentKey } from "@/lib/agents/agent-profile";
import { allowsPrivateFor } from "@/lib/agents/negotiate-agent";
import type { OperationContext } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { verifyCheckoutMandate } from "@/lib/mandates/verify-checkout-mandate";

import type { checkoutToWire } from "../to-wire";

/**
 * Step: the AP2 checkout mandate over the live, re-priced terms (DECISIONS B5), checked before any money moves;
 * the key comes from the agent profile named in UCP-Agent, from a copy at most 5 minutes old, refetched once for a
 * key id it does not list (DECISIONS.md B13).
 * @throws AppError mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   agent_missing_key and the agent-profile fetch codes
 */
export const verifyMandate = async (
  ctx: OperationContext,
  store: Store,
  wire: ReturnType<typeof checkoutToWire>,
  mandate: string | undefined,
): Promise<void> => {
  const allowPrivate = allowsPrivateFor(store);
  await verifyCheckoutMandate(mandate, {
    terms: mandateTerms(wire, store.slug),
    lookupKey: async (kid) => {
      const found = await findAgentKey(ctx.agentProfile, kid, { allowPrivate });
      return found.found ? { key: found.key } : { missing: found.why };
    },
    now: ctx.now,
  });
};
