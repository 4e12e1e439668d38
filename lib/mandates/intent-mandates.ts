import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import type { IntentMandate } from "@/lib/generated/prisma/client";
import { AllowanceListOutputSchema, IntentMandateOutputSchema } from "@/lib/ucp/output-schemas";

import { readIntentMandate, type IntentPayload } from "./intent-mandate";
import { allowanceStatus, remainingOf, remainingToWire } from "./spend-ledger";

// The buyer's signed allowances, kept: the wallet page stores what the buyer signed, the buyer's agent fetches it
// (get_intent_mandate on /account/mcp) to send as ap2.intent_mandate, and the buyer can revoke it. What is stored
// is checked exactly as a completion checks it (signature by the buyer's own wallet, not expired).

/** The columns a signed payload sets (an edit replaces them all, the id and currency stay). */
const columnsOf = (payload: IntentPayload, envelope: string) => ({
  envelope,
  currency: payload.currency,
  perOrderMax: payload.per_order_max ?? null,
  limitDay: payload.limits.day ?? null,
  limitWeek: payload.limits.week ?? null,
  limitMonth: payload.limits.month ?? null,
  merchants: payload.merchants,
  nonce: payload.nonce,
  expiresAt: new Date(payload.expires_at),
});

/**
 * Keeps an allowance the buyer signed on our pages (the spend-cap page, the wallet page). Editing is signing a new
 * payload with the SAME id (new nonce): the row takes the new limits, merchants, per-order maximum and expiry, its
 * spend so far stays on the ledger, and only the newest signature is accepted from then on (an older envelope
 * answers mandate_revoked). The currency cannot change (the ledger counts in it); a revoked allowance stays revoked.
 * @throws AppError mandate_invalid_signature, mandate_expired, mandate_scope_mismatch (another wallet, agent or
 *   buyer; a currency change), mandate_revoked (an edit of a revoked allowance)
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
    throw new AppError("mandate_scope_mismatch", "The allowance names another agent than this one");
  }
  const db = await getDb();
  await db.intentMandate.createMany({
    data: [
      {
        id: payload.id,
        buyerId: input.buyerId,
        clientId: payload.agent,
        ...columnsOf(payload, input.envelope),
      },
    ],
    skipDuplicates: true,
  });
  const saved = await db.intentMandate.findUniqueOrThrow({ where: { id: payload.id } });
  if (saved.buyerId !== input.buyerId || saved.clientId !== payload.agent) {
    throw new AppError(
      "mandate_scope_mismatch",
      "An allowance with this id belongs to another buyer or agent",
    );
  }
  if (saved.envelope === input.envelope || saved.nonce === payload.nonce) return saved;
  // an edit: a new signature over the same id
  if (saved.revokedAt) {
    throw new AppError("mandate_revoked", `The allowance ${saved.id} is revoked: sign a new one instead`);
  }
  if (saved.currency !== payload.currency) {
    throw new AppError(
      "mandate_scope_mismatch",
      `An edit keeps the allowance's currency (${saved.currency}): its spend is counted in it`,
    );
  }
  return db.intentMandate.update({
    where: { id: saved.id },
    data: { ...columnsOf(payload, input.envelope), updatedAt: input.now },
  });
};

/** The newest allowance of a buyer for one agent that is active (not revoked, paused or expired). */
export const currentIntentMandate = async (
  buyerId: string,
  clientId: string,
  now: Date,
): Promise<IntentMandate | null> => {
  const db = await getDb();
  return db.intentMandate.findFirst({
    where: { buyerId, clientId, revokedAt: null, pausedAt: null, expiresAt: { gt: now } },
    orderBy: { createdAt: "desc" },
  });
};

/** Every allowance of a buyer (for one agent, or all), newest first. */
export const listAllowances = async (buyerId: string, clientId?: string): Promise<IntentMandate[]> => {
  const db = await getDb();
  return db.intentMandate.findMany({
    where: { buyerId, ...(clientId ? { clientId } : {}) },
    orderBy: { createdAt: "desc" },
  });
};

/**
 * The buyer pauses, resumes or revokes one of their allowances; it takes effect at once for every new reservation
 * and completion. Reservations already held stay (the wallet may have paid under them: a payment made under a valid
 * reservation always completes) and run out at their expiry. Revoking is final.
 * @throws AppError not_found (not this buyer's), mandate_revoked (resume or pause a revoked one)
 */
export const setAllowanceStatus = async (input: {
  buyerId: string;
  id: string;
  action: "pause" | "resume" | "revoke";
  now: Date;
}): Promise<IntentMandate> => {
  const db = await getDb();
  const row = await db.intentMandate.findFirst({ where: { id: input.id, buyerId: input.buyerId } });
  if (!row) throw new AppError("not_found", `No allowance "${input.id}" of yours`, { path: "$.id" });
  if (row.revokedAt) {
    if (input.action === "revoke") return row;
    throw new AppError("mandate_revoked", `The allowance ${row.id} is revoked`, { path: "$.id" });
  }
  const data =
    input.action === "revoke"
      ? { revokedAt: input.now }
      : input.action === "pause"
        ? { pausedAt: row.pausedAt ?? input.now }
        : { pausedAt: null };
  return db.intentMandate.update({ where: { id: row.id }, data });
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
    "The spend allowance (AP2 intent mandate) the buyer signed for YOUR agent (spend-cap page or wallet page): send its intent_mandate as ap2.intent_mandate when completing a crypto checkout. Give id (payment_mandate_id) for one allowance, or nothing for the newest valid one. not_found: the buyer has not signed one for you (send them to the checkout's continue_url).",
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
          where: {
            id: input.id,
            buyerId,
            clientId,
            revokedAt: null,
            pausedAt: null,
            expiresAt: { gt: ctx.now },
          },
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

/** One allowance as list_my_allowances shows it: what it allows and what is left now. */
export const allowanceToWire = async (row: IntentMandate, now: Date) => {
  const db = await getDb();
  const usage = await remainingOf(db, row, now);
  return {
    id: row.id,
    status: allowanceStatus(row, now),
    currency: row.currency,
    per_order_max: row.perOrderMax,
    limits: { day: row.limitDay, week: row.limitWeek, month: row.limitMonth },
    remaining: remainingToWire(usage),
    spent: {
      day: usage.windows.day.spent,
      week: usage.windows.week.spent,
      month: usage.windows.month.spent,
    },
    merchants: row.merchants as string[] | "*",
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
};

/** list_my_allowances on /account/mcp: every allowance the buyer signed for the calling agent, with what is left. */
export const listMyAllowances = defineOperation({
  name: "list_my_allowances",
  title: "List the buyer's allowances",
  description:
    "The spend allowances (AP2 intent mandates) the buyer signed for YOUR agent, newest first: id (send it as payment_mandate_id to prepare_checkout_payment, or fetch its intent_mandate string with get_intent_mandate), status (active | paused | revoked | expired), currency, per_order_max, limits per rolling day/week/month and what remains of each right now (minor units; null = no limit), allowed merchants, expiry. Only active allowances can pay.",
  errors: ["identity_required"],
  scope: "global",
  input: z.object({}).strict(),
  output: AllowanceListOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    flat: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx) => {
    if (ctx.principal.kind !== "buyer") {
      throw new AppError("identity_required", "The buyer account surface needs the buyer's bearer token");
    }
    const rows = await listAllowances(ctx.principal.buyerId, ctx.principal.clientId);
    return { body: { allowances: await Promise.all(rows.map((r) => allowanceToWire(r, ctx.now))) } };
  },
});
