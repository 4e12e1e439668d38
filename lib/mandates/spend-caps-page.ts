import "server-only";

import { listLinkedAgents } from "@/lib/buyers/consents";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

import { listAllowances, saveIntentMandate, setAllowanceStatus } from "./intent-mandates";
import { allowanceStatus, remainingOf, WINDOWS, type AllowanceStatus, type WindowName } from "./spend-ledger";

// The buyer's spend-cap page (/account/spend-caps): per linked agent, every allowance with what it allows and, per
// rolling window, what was spent, what is reserved now and what remains — read from the one ledger. Creating or
// editing an allowance is a new wallet signature (saveIntentMandate); pause, resume and revoke take effect at once.

export type AllowanceView = {
  id: string;
  status: AllowanceStatus;
  currency: string;
  perOrderMax: number | null;
  merchants: string[] | "*";
  expiresAt: string;
  reserved: number;
  windows: { name: WindowName; limit: number | null; spent: number; remaining: number | null }[];
};

export type AgentAllowances = { clientId: string; clientName: string; allowances: AllowanceView[] };

/** Every linked agent of the buyer with its allowances, newest first, and their usage now. */
export const spendCapsOf = async (buyerId: string, now: Date): Promise<AgentAllowances[]> => {
  const db = await getDb();
  const [agents, rows] = await Promise.all([listLinkedAgents(buyerId), listAllowances(buyerId)]);
  return Promise.all(
    agents.map(async (agent) => ({
      clientId: agent.clientId,
      clientName: agent.clientName,
      allowances: await Promise.all(
        rows
          .filter((r) => r.clientId === agent.clientId)
          .map(async (row): Promise<AllowanceView> => {
            const usage = await remainingOf(db, row, now);
            return {
              id: row.id,
              status: allowanceStatus(row, now),
              currency: row.currency,
              perOrderMax: row.perOrderMax,
              merchants: row.merchants as string[] | "*",
              expiresAt: row.expiresAt.toISOString(),
              reserved: usage.reserved,
              windows: (Object.keys(WINDOWS) as WindowName[]).map((name) => ({
                name,
                limit: usage.windows[name].limit,
                spent: usage.windows[name].spent,
                remaining: usage.windows[name].remaining,
              })),
            };
          }),
      ),
    })),
  );
};

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
