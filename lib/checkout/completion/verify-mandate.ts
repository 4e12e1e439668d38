import "server-only";

import { findAgentKey } from "@/lib/agents/agent-profile";
import { allowsPrivateFor } from "@/lib/agents/negotiate-agent";
import { negotiatedCapabilities } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import type { OperationContext } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { readTermsHistory } from "@/lib/mandates/terms-history";
import { verifyCheckoutMandate } from "@/lib/mandates/verify-checkout-mandate";
import { handlerDocsAt, isOlderVersion } from "@/lib/ucp/versions";
import { checkoutDown } from "@/lib/ucp/versions/checkout";

import type { checkoutToWire } from "../to-wire";

const AP2_MANDATE = "dev.ucp.shopping.ap2_mandate";

/**
 * Step: the AP2 checkout mandate over the live, re-priced terms (DECISIONS B5), checked before any money moves;
 * the key comes from the agent profile named in UCP-Agent, from a copy at most 5 minutes old, refetched once for a
 * key id it does not list (DECISIONS.md B13).
 * @throws AppError capabilities_incompatible (AP2 not negotiated), mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   agent_missing_key and the agent-profile fetch codes
 */
export const verifyMandate = async (
  ctx: OperationContext,
  store: Store,
  wire: ReturnType<typeof checkoutToWire>,
  mandate: string | undefined,
  /** The session's stored terms history (to say what changed when the mandate was signed earlier). */
  termsHistory: unknown,
): Promise<void> => {
  // Our stores require AP2 checkout mandates on the card rail (DECISIONS B5): a platform that did not negotiate
  // the extension (UCP overview.md intersection; ap2-mandates.md "Activation and Session Locking") is told which
  // capability to declare rather than asked for a mandate it never agreed to send.
  const active = negotiatedCapabilities();
  if (active && !active.has(AP2_MANDATE)) {
    throw new AppError(
      "capabilities_incompatible",
      `This store requires AP2 checkout mandates to complete with a card: declare ${AP2_MANDATE} (version ` +
        `${ctx.ucpVersion}) in your platform profile's ucp.capabilities, publish your mandate key in its ` +
        `signing_keys, and send ap2.checkout_mandate`,
      { path: "$.ap2.checkout_mandate" },
    );
  }
  const allowPrivate = allowsPrivateFor(store);
  // the mandate embeds the checkout the platform saw: at an older version, the translated one (unsigned
  // discounts; docs/ucp-versions.md §3.13)
  const seen = isOlderVersion(ctx.ucpVersion)
    ? (checkoutDown(ctx.ucpVersion, wire, handlerDocsAt(ctx.baseUrl)) as unknown as typeof wire)
    : wire;
  await verifyCheckoutMandate(mandate, {
    terms: mandateTerms(seen, store.slug),
    lookupKey: async (kid) => {
      const found = await findAgentKey(ctx.agentProfile, kid, { allowPrivate });
      return found.found ? { key: found.key } : { missing: found.why };
    },
    now: ctx.now,
    earlierTerms: readTermsHistory(termsHistory),
  });
};
