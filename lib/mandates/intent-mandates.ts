import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import type { IntentMandate } from "@/lib/generated/prisma/client";
import { IntentMandateOutputSchema } from "@/lib/ucp/output-schemas";

import { readIntentMandate } from "./intent-mandate";

// The buyer's signed allowances, kept: the wallet page stores what the buyer signed, the buyer's agent fetches it
// (get_intent_mandate on /account/mcp) to send as ap2.intent_mandate, and the buyer can revoke it. What is stored
// is checked exactly as a completion checks it (signature by the buyer's own wallet, not expired).

/**
 * Keeps an allowance the buyer signed on our page.
 * @throws AppError mandate_invalid_signature, mandate_expired, mandate_scope_mismatch (another wallet or agent)
 */
export const saveIntentMandate = async (input: {
  buyerId: string;
  buyerAddress: string;
  /** The agent the allowance is for (OAuth client id). */
  clientId: string;
  envelope: string;
  now: Date;
}): Promise<IntentMandate> => {
  const payload = await readIntentMandate(input.envelope, input.now);
  if (payload.buyer_address !== input.buyerAddress) {
    throw new AppError(
      "mandate_scope_mismatch",
      "The allowance must be signed by the wallet you signed in with",
    );
  }
  if (payload.agent !== input.clientId) {
    throw new AppError("mandate_scope_mismatch", "The allowance names another agent than this checkout's");
  }
  const db = await getDb();
  await db.intentMandate.createMany({
    data: [
      {
        id: payload.id,
        buyerId: input.buyerId,
        clientId: payload.agent,
        envelope: input.envelope,
        currency: payload.currency,
        perOrderMax: payload.per_order_max ?? null,
        expiresAt: new Date(payload.expires_at),
      },
    ],
    skipDuplicates: true,
  });
  const saved = await db.intentMandate.findUniqueOrThrow({ where: { id: payload.id } });
  if (saved.buyerId !== input.buyerId) {
    throw new AppError("mandate_scope_mismatch", "An allowance with this id belongs to another buyer");
  }
  return saved;
};

/** The newest allowance of a buyer for one agent that is neither revoked nor expired. */
export const currentIntentMandate = async (
  buyerId: string,
  clientId: string,
  now: Date,
): Promise<IntentMandate | null> => {
  const db = await getDb();
  return db.intentMandate.findFirst({
    where: { buyerId, clientId, revokedAt: null, expiresAt: { gt: now } },
    orderBy: { createdAt: "desc" },
  });
};

export const intentMandateToWire = (row: IntentMandate) => ({
  id: row.id,
  intent_mandate: row.envelope,
  currency: row.currency,
  per_order_max: row.perOrderMax,
  expires_at: row.expiresAt.toISOString(),
});

/** get_intent_mandate on /account/mcp: the allowance the buyer signed for the calling agent. */
export const getIntentMandate = defineOperation({
  name: "get_intent_mandate",
  title: "Get the buyer's allowance",
  description:
    "The spend allowance (AP2 intent mandate) the buyer signed for YOUR agent on the wallet page: send its intent_mandate as ap2.intent_mandate when completing a crypto checkout. Give id (payment_mandate_id) for one allowance, or nothing for the newest valid one. not_found: the buyer has not signed one for you (send them to the checkout's continue_url).",
  errors: ["not_found"],
  scope: "global",
  input: z.object({ id: z.string().min(1).max(100).optional() }).strict(),
  output: IntentMandateOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    flat: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx, input) => {
    if (ctx.principal.kind !== "buyer") {
      throw new AppError("identity_required", "The buyer account surface needs the buyer's bearer token");
    }
    const { buyerId, clientId } = ctx.principal;
    const db = await getDb();
    const row = input.id
      ? await db.intentMandate.findFirst({
          where: { id: input.id, buyerId, clientId, revokedAt: null, expiresAt: { gt: ctx.now } },
        })
      : await currentIntentMandate(buyerId, clientId, ctx.now);
    if (!row) {
      throw new AppError(
        "not_found",
        input.id
          ? `No valid allowance "${input.id}" for your agent`
          : "The buyer has not signed an allowance for your agent: send them to the checkout's continue_url",
        { path: input.id ? "$.id" : "$" },
      );
    }
    return { body: intentMandateToWire(row) };
  },
});
