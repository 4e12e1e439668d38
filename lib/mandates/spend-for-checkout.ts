import "server-only";

import type { Db } from "@/lib/config/db";
import { query, statementOf, transaction } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { IntentMandate, SpendEntry, Store } from "@/lib/generated/prisma/client";

import { toAllowanceCurrency } from "./allowance-amount";
import { readIntentMandate } from "./intent-mandate";
import { assertAllowanceActive, INTENT_MANDATE_COLUMNS, reserveSpend } from "./spend-ledger";

// Which allowance pays for one checkout, and its reservation (DECISIONS B6). Two ways in:
// - by id (payment_mandate_id on payment-intent, or none: the newest active allowance of this buyer and agent that
//   allows the store) — the agent never handles the signed string;
// - by the signed string (ap2.intent_mandate on a completion): verified, then matched to the stored allowance
//   (registered if the buyer's wallet signed it elsewhere and it is new to us); an older signature of an edited
//   allowance is refused.
// Both then check what the allowance allows now (status, agent still linked, store) and reserve through the ledger.

/** A crypto prepare's reservation outlives its quote by this much: a payment signed at the last second completes. */
export const PREPARE_RESERVATION_GRACE_MS = 15 * 60_000;
/** A card completion's reservation: the charge, a 3-DS step and the webhook that places the order fit in it. */
export const CARD_RESERVATION_MS = 60 * 60_000;

const PATH = "$.ap2.intent_mandate";

/** Whether an allowance lets its agent buy from the store `merchant` (a slug): every store, or one it names. */
export const allowsStore = (row: Pick<IntentMandate, "merchants">, merchant: string): boolean => {
  const merchants = row.merchants as string[] | "*";
  return merchants === "*" || merchants.includes(merchant);
};

const assertAllowsStore = (row: IntentMandate, merchant: string, path: string): void => {
  if (!allowsStore(row, merchant)) {
    throw new AppError(
      "mandate_scope_mismatch",
      `The allowance ${row.id} does not allow the store ${merchant}`,
      {
        path,
      },
    );
  }
};

/** Consent is not spending authorization, but an allowance dies with the agent's link (seed §5 rule 7). */
const assertAgentLinked = async (db: Db, row: IntentMandate, path: string): Promise<void> => {
  const consent = await db.buyerConsent.findUnique({
    where: { buyerId_clientId: { buyerId: row.buyerId, clientId: row.clientId } },
    select: { revokedAt: true },
  });
  if (!consent || consent.revokedAt) {
    throw new AppError(
      "mandate_revoked",
      `The buyer unlinked the agent of the allowance ${row.id}: it cannot pay any more`,
      { path },
    );
  }
};

/**
 * The allowance a buyer-bound prepare reserves on: `id` when given (it must be this buyer's, for this agent, active
 * and allow the store), else the newest active one of this buyer and agent that allows the store, else null.
 * @throws AppError not_found, mandate_scope_mismatch, mandate_revoked, mandate_expired, allowance_paused
 */
export const allowanceForPrepare = async (
  db: Db,
  input: {
    buyerId: string;
    clientId: string;
    /** The store (or, for a combined payment, every store) the allowance must allow. */
    merchant: string | readonly string[];
    id?: string | null;
    now: Date;
  },
): Promise<IntentMandate | null> => {
  const path = "$.payment_mandate_id";
  const merchantList = typeof input.merchant === "string" ? [input.merchant] : input.merchant;
  if (input.id) {
    const row = await db.intentMandate.findFirst({ where: { id: input.id, buyerId: input.buyerId } });
    if (!row) throw new AppError("not_found", `No allowance "${input.id}" of this buyer`, { path });
    if (row.clientId !== input.clientId) {
      throw new AppError("mandate_scope_mismatch", `The allowance ${row.id} is for another agent`, { path });
    }
    assertAllowanceActive(row, input.now);
    for (const merchant of merchantList) assertAllowsStore(row, merchant, path);
    await assertAgentLinked(db, row, path);
    return row;
  }
  // every crypto prepare asks: through the driver adapter (lib/config/sql.ts), the records Prisma's client reads
  const rows = await query<IntentMandate>(
    statementOf(
      `SELECT ${INTENT_MANDATE_COLUMNS} FROM intent_mandates
       WHERE buyer_id = $1 AND client_id = $2 AND revoked_at IS NULL AND paused_at IS NULL AND expires_at > $3
       ORDER BY created_at DESC`,
      [input.buyerId, input.clientId, input.now],
    ),
  );
  const row = rows.find((r) => merchantList.every((m) => allowsStore(r, m)));
  return row ?? null;
};

/**
 * The stored allowance behind a signed ap2.intent_mandate, checked for this payment: signed by its buyer's wallet,
 * the newest signature of that id, the checkout's buyer and the calling agent (when known), active, agent still
 * linked, allows the store.
 * @throws AppError mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   mandate_revoked, allowance_paused
 */
export const allowanceFromEnvelope = async (
  db: Db,
  encoded: string | undefined,
  input: { buyerAddress: string | null; agent: string | null; merchant: string; now: Date },
): Promise<IntentMandate> => {
  const payload = await readIntentMandate(encoded, input.now);
  const mismatch = (what: string) => new AppError("mandate_scope_mismatch", what, { path: PATH });
  if (input.buyerAddress !== null && payload.buyer_address !== input.buyerAddress) {
    throw mismatch(`The intent mandate is for wallet ${payload.buyer_address}, not the checkout's buyer`);
  }
  if (input.agent !== null && payload.agent !== input.agent) {
    throw mismatch("The intent mandate was signed for another agent (its agent is not your OAuth client id)");
  }
  const buyer = await db.buyer.findUnique({
    where: { suiAddress: payload.buyer_address },
    select: { id: true },
  });
  if (!buyer) {
    throw mismatch("No buyer account has this wallet: the buyer signs allowances on the spend-cap page");
  }
  let row = await db.intentMandate.findUnique({ where: { id: payload.id } });
  if (!row) {
    // signed by the buyer's own wallet for a known buyer: kept, so its spend is counted from now on
    await db.intentMandate.createMany({
      data: [
        {
          id: payload.id,
          buyerId: buyer.id,
          clientId: payload.agent,
          envelope: encoded!,
          currency: payload.currency,
          perOrderMax: payload.per_order_max ?? null,
          limitDay: payload.limits.day ?? null,
          limitWeek: payload.limits.week ?? null,
          limitMonth: payload.limits.month ?? null,
          merchants: payload.merchants,
          nonce: payload.nonce,
          expiresAt: new Date(payload.expires_at),
        },
      ],
      skipDuplicates: true,
    });
    row = await db.intentMandate.findUniqueOrThrow({ where: { id: payload.id } });
  }
  if (row.buyerId !== buyer.id || row.clientId !== payload.agent) {
    throw mismatch("An allowance with this id belongs to another buyer or agent");
  }
  if (row.nonce !== payload.nonce) {
    throw new AppError(
      "mandate_revoked",
      `The buyer signed a newer version of the allowance ${row.id}: fetch it with get_intent_mandate`,
      { path: PATH },
    );
  }
  assertAllowanceActive(row, input.now);
  assertAllowsStore(row, input.merchant, PATH);
  await assertAgentLinked(db, row, PATH);
  return row;
};

/**
 * Reserves a checkout's total on an allowance: converted into its currency at the oracle's rate now (rounded
 * against the buyer), then the ledger's checks (per-order maximum, every window) under the allowance's lock.
 * @throws AppError payment_provider_error (no FX rate), and reserveSpend's codes (spend_cap_exceeded, …)
 */
export const reserveCheckoutSpend = async (
  db: Db,
  input: {
    allowance: IntentMandate;
    store: Store;
    checkoutId: string;
    amount: number;
    currency: string;
    expiresAt: Date;
    now: Date;
    /** The buyer approved this very payment: the limits are not checked (reserveSpend's `force`). */
    force?: boolean;
    /** reserveSpend's `onBefore`: the checkout's held reservation as it was before this one. */
    onBefore?: (held: SpendEntry | null) => void;
  },
): Promise<SpendEntry> => {
  const amount = await toAllowanceCurrency({
    amount: input.amount,
    currency: input.currency,
    allowanceCurrency: input.allowance.currency,
    mode: input.store.mode === "live" ? "live" : "test",
  });
  return transaction((tx) =>
    reserveSpend(tx, {
      allowanceId: input.allowance.id,
      amount,
      origin: { amount: input.amount, currency: input.currency },
      scope: { checkoutId: input.checkoutId },
      storeId: input.store.id,
      expiresAt: input.expiresAt,
      now: input.now,
      force: input.force ?? false,
      ...(input.onBefore ? { onBefore: input.onBefore } : {}),
    }),
  );
};

/**
 * Reserves a combined payment's checkouts on one allowance, as ONE reservation for the group (the wallet pays once,
 * after this): each checkout converted into the allowance's currency at the oracle's rate now (rounded against the
 * buyer) and held to the per-order maximum on its own; their sum then passes the ledger's window checks under the
 * allowance's lock. Each order later debits its share (placeOrder with the group id).
 * @throws AppError spend_cap_exceeded (path: the checkout over the per-order maximum, or the whole group), and
 *   reserveSpend's codes
 */
export const reserveGroupSpend = async (
  db: Db,
  input: {
    allowance: IntentMandate;
    groupId: string;
    checkouts: readonly { store: Store; amount: number; currency: string; path: string }[];
    expiresAt: Date;
    now: Date;
  },
): Promise<SpendEntry> => {
  const { allowance } = input;
  let total = 0;
  for (const checkout of input.checkouts) {
    const amount = await toAllowanceCurrency({
      amount: checkout.amount,
      currency: checkout.currency,
      allowanceCurrency: allowance.currency,
      mode: checkout.store.mode === "live" ? "live" : "test",
    });
    if (allowance.perOrderMax !== null && amount > allowance.perOrderMax) {
      throw new AppError(
        "spend_cap_exceeded",
        `The order at ${checkout.store.slug} (${amount} ${allowance.currency} minor units) is over the allowance's per-order maximum of ${allowance.perOrderMax}`,
        {
          path: checkout.path,
          details: {
            allowance_id: allowance.id,
            currency: allowance.currency,
            requested: amount,
            per_order_max: allowance.perOrderMax,
          },
        },
      );
    }
    total += amount;
  }
  const origin = input.checkouts.reduce((sum, c) => sum + c.amount, 0);
  return transaction((tx) =>
    reserveSpend(tx, {
      allowanceId: allowance.id,
      amount: total,
      origin: { amount: origin, currency: input.checkouts[0]!.currency },
      scope: { groupId: input.groupId },
      storeId: null,
      expiresAt: input.expiresAt,
      now: input.now,
    }),
  );
};
