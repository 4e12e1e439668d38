import "server-only";

import { agentPurchasesOf, type AgentPurchases } from "@/lib/buyers/agent-purchases";
import { listLinkedAgents } from "@/lib/buyers/consents";
import { AppError } from "@/lib/core/errors";

import { saveIntentMandate, setAllowanceStatus } from "./intent-mandates";

// The buyer's spend-cap page (/account/spend-caps): per agent, every allowance with what it allows and, per rolling
// window, what was spent, what is reserved now and what remains — read from the one ledger — beside the purchases
// the agent really made for the buyer (from the orders, lib/buyers/agent-purchases.ts), so a purchase that counted
// against no allowance is shown too. Creating or editing an allowance is a new wallet signature
// (saveIntentMandate); pause, resume and revoke take effect at once.

export type { AllowanceView } from "@/lib/buyers/agent-purchases";
export type AgentAllowances = AgentPurchases;

/** Every linked agent of the buyer (and any other that bought for them) with its purchases and allowances now. */
export const spendCapsOf = async (buyerId: string, now: Date): Promise<AgentAllowances[]> =>
  (await agentPurchasesOf(buyerId, now)).agents;

/**
 * Keeps an allowance the signed-in buyer signed for one of their linked agents (new, or an edit of the same id).
 * @throws AppError not_found (not a linked agent), and saveIntentMandate's codes
 */
export const saveMyAllowance = async (input: {
  buyerId: string;
  buyerAddress: string;
  clientId: string;
  envelope: string;
  now: Date;
}) => {
  const agents = await listLinkedAgents(input.buyerId);
  if (!agents.some((a) => a.clientId === input.clientId)) {
    throw new AppError("not_found", "This agent is not linked to your account");
  }
  if (input.envelope.length > 16_000) {
    throw new AppError("mandate_invalid_signature", "The allowance is not a signed envelope");
  }
  return saveIntentMandate(input);
};

export { setAllowanceStatus };
