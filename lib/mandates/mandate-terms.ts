import type { MandateTerms } from "@agent-commerce/agent-kit/mandate";

// The AP2 checkout mandate terms (DECISIONS.md B5, as amended) come from the agent kit (packages/agent-kit), the
// package agents build their mandates with: the service verifies against the very bytes agents sign, so the two
// cannot drift apart. What stays here is the verifier's own knowledge of earlier terms.

export {
  ADDRESS_FIELDS,
  mandatePayload,
  mandateTerms,
  normalizeDestination,
  type MandateAddress,
  type MandateCheckout,
  type MandateTerms,
} from "@agent-commerce/agent-kit/mandate";

/**
 * The terms before they covered the buyer and the shipment (lines, totals, currency only). Never accepted: the
 * verifier recognises a mandate signed over them only to say so, instead of a bare "signature does not verify".
 */
export const previousMandateTerms = ({ buyer: _buyer, fulfillment: _fulfillment, ...rest }: MandateTerms) =>
  rest;
