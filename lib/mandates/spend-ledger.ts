import "server-only";

import type { SqlQueryable } from "@prisma/driver-adapter-utils";

import { getDb, isUniqueViolation } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { query, queryWith, sql, statementOf } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import type { IntentMandate, Prisma, SpendEntry } from "@/lib/generated/prisma/client";

import { atRecordedRate } from "./allowance-amount";

// THE spend ledger (DECISIONS B6): one table of entries per allowance, in the allowance's currency, whatever the
// store and the rail.
// - reservation: taken before any money can move (crypto payment-intent, a combined prepare, a card completion
//   carrying an intent mandate), under a row lock on the allowance so parallel reservations see each other; it
//   counts in every window while it is held and not expired. One held reservation per checkout or per group
//   (unique held_checkout_id / held_group_id).
// - debit: written in the transaction that creates the order; it consumes the checkout's reservation (a group's
//   reservation one leg at a time) and never re-checks the limits — a payment made under a valid reservation
//   always completes. One debit per order (unique debit_order_id).
// - credit: written when a refund or cancellation is paid back; it counts in the window of the debit it gives back
//   (rolling windows measure what was spent then), never more than that debit. One per adjustment.
// Spent in a window = debits − credits whose window_at falls in it; remaining = limit − spent − held now.

/** Any Prisma client: the top-level one or a transaction's. */
type LedgerDb = Prisma.TransactionClient;

export const WINDOWS = {
  day: 24 * 60 * 60_000,
  week: 7 * 24 * 60 * 60_000,
  month: 30 * 24 * 60 * 60_000,
} as const;
export type WindowName = keyof typeof WINDOWS;
const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];

export type SpendScope = { checkoutId: string } | { groupId: string };

export type WindowUsage = {
  /** The signed limit (minor units of the allowance's currency), or null: no limit on this window. */
  limit: number | null;
  /** Debits minus credits in the window. */
  spent: number;
  /** Held now (reservations not yet consumed, released or expired). */
  reserved: number;
  /** limit − spent − reserved (never below 0), or null without a limit. */
  remaining: number | null;
};

export type AllowanceUsage = {
  allowanceId: string;
  currency: string;
  perOrderMax: number | null;
  reserved: number;
  windows: Record<WindowName, WindowUsage>;
};

export type AllowanceStatus = "active" | "paused" | "revoked" | "expired";

/** What the buyer sees and an agent reads: revoked wins over expired wins over paused. */
export const allowanceStatus = (
  row: Pick<IntentMandate, "revokedAt" | "pausedAt" | "expiresAt">,
  now: Date,
): AllowanceStatus => {
  if (row.revokedAt) return "revoked";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  if (row.pausedAt) return "paused";
  return "active";
};

/**
 * An allowance that may take a new reservation now.
 * @throws AppError mandate_revoked, mandate_expired, allowance_paused
 */
export const assertAllowanceActive = (row: IntentMandate, now: Date): void => {
  const status = allowanceStatus(row, now);
  const path = "$.payment_mandate_id";
  if (status === "revoked") {
    throw new AppError("mandate_revoked", `The buyer revoked the allowance ${row.id}`, { path });
  }
  if (status === "expired") {
    throw new AppError(
      "mandate_expired",
      `The allowance ${row.id} expired at ${row.expiresAt.toISOString()}`,
      {
        path,
      },
    );
  }
  if (status === "paused") {
    throw new AppError("allowance_paused", `The buyer paused the allowance ${row.id}`, { path });
  }
};

const limitsOf = (row: IntentMandate): Record<WindowName, number | null> => ({
  day: row.limitDay,
  week: row.limitWeek,
  month: row.limitMonth,
});

type LedgerEntry = Pick<SpendEntry, "kind" | "state" | "amount" | "consumed" | "windowAt" | "expiresAt">;

/** Spent, reserved and remaining per rolling window of one allowance at `now`, from its entries (usageEntries). */
const usageOf = (row: IntentMandate, entries: readonly LedgerEntry[], now: Date): AllowanceUsage => {
  const reserved = entries
    .filter(
      (e) => e.kind === "reservation" && e.state === "held" && (e.expiresAt?.getTime() ?? 0) > now.getTime(),
    )
    .reduce((sum, e) => sum + Math.max(0, e.amount - e.consumed), 0);
  const limits = limitsOf(row);
  const windows = Object.fromEntries(
    WINDOW_NAMES.map((name) => {
      const from = now.getTime() - WINDOWS[name];
      const spent = entries
        .filter((e) => e.windowAt.getTime() > from && (e.kind === "debit" || e.kind === "credit"))
        .reduce((sum, e) => sum + (e.kind === "debit" ? e.amount : -e.amount), 0);
      const limit = limits[name];
      const remaining = limit === null ? null : Math.max(0, limit - spent - reserved);
      return [name, { limit, spent, reserved, remaining }];
    }),
  ) as Record<WindowName, WindowUsage>;
  return { allowanceId: row.id, currency: row.currency, perOrderMax: row.perOrderMax, reserved, windows };
};

/** Spent, reserved and remaining per rolling window of one allowance at `now`. */
export const remainingOf = async (db: LedgerDb, row: IntentMandate, now: Date): Promise<AllowanceUsage> => {
  const since = new Date(now.getTime() - WINDOWS.month);
  const entries = await db.spendEntry.findMany({
    where: {
      allowanceId: row.id,
      OR: [{ windowAt: { gt: since } }, { kind: "reservation", state: "held" }],
    },
    select: { kind: true, state: true, amount: true, consumed: true, windowAt: true, expiresAt: true },
  });
  return usageOf(row, entries, now);
};

/** The wire form of what is left: per window with a limit, and the per-order maximum. */
export const remainingToWire = (usage: AllowanceUsage) => ({
  currency: usage.currency,
  per_order_max: usage.perOrderMax,
  reserved: usage.reserved,
  day: usage.windows.day.remaining,
  week: usage.windows.week.remaining,
  month: usage.windows.month.remaining,
});

/** intent_mandates' columns as Prisma's IntentMandate names them, for the statements sent through the adapter. */
export const INTENT_MANDATE_COLUMNS = `id, buyer_id AS "buyerId", client_id AS "clientId", envelope, currency,
  per_order_max AS "perOrderMax", limit_day AS "limitDay", limit_week AS "limitWeek", limit_month AS "limitMonth",
  merchants, nonce, expires_at AS "expiresAt", created_at AS "createdAt", updated_at AS "updatedAt",
  paused_at AS "pausedAt", revoked_at AS "revokedAt"`;

/**
 * Serialises every ledger write of one allowance (row lock; PGlite runs one transaction at a time anyway): the
 * allowance as locked, in the statement that locks it.
 */
const lockAllowance = async (tx: SqlQueryable, allowanceId: string): Promise<IntentMandate> => {
  const [row] = await queryWith<IntentMandate>(
    tx,
    statementOf(`SELECT ${INTENT_MANDATE_COLUMNS} FROM intent_mandates WHERE id = $1 FOR UPDATE`, [
      allowanceId,
    ]),
  );
  if (!row)
    throw new AppError("not_found", `No allowance "${allowanceId}"`, { path: "$.payment_mandate_id" });
  return row;
};

/** Serialises the ledger writes of one allowance in a transaction on Prisma's client (creditSpend's). */
const lockAllowanceOnPrisma = async (tx: LedgerDb, allowanceId: string): Promise<void> => {
  await tx.$queryRaw`SELECT id FROM intent_mandates WHERE id = ${allowanceId} FOR UPDATE`;
  const row = await tx.intentMandate.findUnique({ where: { id: allowanceId }, select: { id: true } });
  if (!row)
    throw new AppError("not_found", `No allowance "${allowanceId}"`, { path: "$.payment_mandate_id" });
};

const heldKey = (scope: SpendScope) =>
  "checkoutId" in scope ? { heldCheckoutId: scope.checkoutId } : { heldGroupId: scope.groupId };

const RELEASED = { state: "released", heldCheckoutId: null, heldGroupId: null } as const;

/** spend_entries' columns as Prisma's SpendEntry names them, for the statements sent through the driver adapter. */
const SPEND_ENTRY_COLUMNS = `id, allowance_id AS "allowanceId", kind, state, amount, consumed,
  origin_amount AS "originAmount", origin_currency AS "originCurrency", checkout_id AS "checkoutId",
  group_id AS "groupId", store_id AS "storeId", order_id AS "orderId", parent_id AS "parentId",
  held_checkout_id AS "heldCheckoutId", held_group_id AS "heldGroupId", debit_order_id AS "debitOrderId",
  adjustment_id AS "adjustmentId", window_at AS "windowAt", expires_at AS "expiresAt", created_at AS "createdAt"`;

/**
 * Reserves `amount` (minor units of the allowance's currency, already converted and rounded against the buyer) for
 * a checkout or a combined group, or throws before anything is written. Call it inside a transaction on the driver
 * adapter (`transaction((tx) => reserveSpend(tx, …))`, lib/config/sql.ts): the allowance row is locked until it
 * commits. A scope that already holds a reservation on this allowance covering the amount keeps it (its expiry
 * extended); any other held reservation of the scope is released first (a re-prepare at a new total re-reserves).
 * Its statements go through the adapter: every crypto prepare reserves.
 * `before`: the scope's held reservation as it was when the call began (null without one).
 * @throws AppError not_found, mandate_revoked, mandate_expired, allowance_paused, spend_cap_exceeded (details:
 *   remaining per window, requested), conflict (a parallel reservation of the same scope on another allowance)
 */
export const reserveSpend = async (
  tx: SqlQueryable,
  input: {
    allowanceId: string;
    amount: number;
    origin: { amount: number; currency: string };
    scope: SpendScope;
    storeId?: string | null;
    expiresAt: Date;
    now: Date;
    /**
     * The buyer approved this payment themselves (it landed without room): reserved whatever the limits say, so
     * the order's debit records it. Never set on an agent's request.
     */
    force?: boolean;
    /** Called with the scope's held reservation as read under the lock, before anything is written. */
    onBefore?: (held: SpendEntry | null) => void;
  },
): Promise<SpendEntry> => {
  const row = await lockAllowance(tx, input.allowanceId);
  if (!input.force) assertAllowanceActive(row, input.now);
  const checkoutId = "checkoutId" in input.scope ? input.scope.checkoutId : null;
  const groupId = "groupId" in input.scope ? input.scope.groupId : null;
  // one read under the lock: the scope's held reservation (whatever its allowance) and the allowance's entries that
  // count now (the month's, and every held reservation), as remainingOf reads them
  const since = new Date(input.now.getTime() - WINDOWS.month);
  const read = await queryWith<SpendEntry & { scoped: boolean; counted: boolean }>(
    tx,
    statementOf(
      `SELECT ${SPEND_ENTRY_COLUMNS},
         (held_checkout_id = $2 OR held_group_id = $3) IS TRUE AS scoped,
         (allowance_id = $1 AND (window_at > $4 OR (kind = 'reservation' AND state = 'held'))) AS counted
       FROM spend_entries
       WHERE (allowance_id = $1 AND (window_at > $4 OR (kind = 'reservation' AND state = 'held')))
          OR held_checkout_id = $2 OR held_group_id = $3`,
      [row.id, checkoutId, groupId, since],
    ),
  );
  const held = read.find((e) => e.scoped) ?? null;
  input.onBefore?.(held ? entryOf(held) : null);
  let counted = read.filter((e) => e.counted);
  if (held) {
    const live = (held.expiresAt?.getTime() ?? 0) > input.now.getTime();
    if (held.allowanceId === row.id && live && held.amount - held.consumed >= input.amount) {
      const expiresAt = new Date(Math.max(held.expiresAt!.getTime(), input.expiresAt.getTime()));
      await tx.executeRaw(sql`UPDATE spend_entries SET expires_at = ${expiresAt} WHERE id = ${held.id}`);
      return { ...entryOf(held), expiresAt };
    }
    await tx.executeRaw(sql`
      UPDATE spend_entries SET state = 'released', held_checkout_id = NULL, held_group_id = NULL
      WHERE id = ${held.id} AND state = 'held'`);
    // released: no longer held, so it counts no more
    counted = counted.filter((e) => e.id !== held.id || e.kind !== "reservation");
  }
  if (
    !input.force &&
    row.perOrderMax !== null &&
    "checkoutId" in input.scope &&
    input.amount > row.perOrderMax
  ) {
    throw new AppError(
      "spend_cap_exceeded",
      `This order (${input.amount} ${row.currency} minor units) is over the allowance's per-order maximum of ${row.perOrderMax}`,
      {
        path: "$.ap2.intent_mandate",
        details: {
          allowance_id: row.id,
          currency: row.currency,
          requested: input.amount,
          per_order_max: row.perOrderMax,
        },
      },
    );
  }
  const usage = usageOf(row, counted, input.now);
  const over = WINDOW_NAMES.filter((w) => {
    if (input.force) return false;
    const remaining = usage.windows[w].remaining;
    return remaining !== null && input.amount > remaining;
  });
  if (over.length > 0) {
    const remaining = remainingToWire(usage);
    throw new AppError(
      "spend_cap_exceeded",
      `This payment (${input.amount} ${row.currency} minor units) is over the buyer's ${over.join(", ")} limit: ${over.map((w) => `${remaining[w]} left this ${w}`).join(", ")}. The buyer can raise it on the spend-cap page (/account/spend-caps)`,
      {
        path: "$.ap2.intent_mandate",
        details: { allowance_id: row.id, requested: input.amount, remaining },
      },
    );
  }
  try {
    const [created] = await queryWith<SpendEntry>(
      tx,
      statementOf(
        `INSERT INTO spend_entries (id, allowance_id, kind, state, amount, consumed, origin_amount, origin_currency,
           checkout_id, group_id, store_id, held_checkout_id, held_group_id, window_at, expires_at, created_at)
         VALUES ($1, $2, 'reservation', 'held', $3, 0, $4, $5, $6, $7, $8, $6, $7, $9, $10, $11)
         RETURNING ${SPEND_ENTRY_COLUMNS}`,
        [
          newId("spendEntry"),
          row.id,
          input.amount,
          input.origin.amount,
          input.origin.currency.toUpperCase(),
          checkoutId,
          groupId,
          input.storeId ?? null,
          input.now,
          input.expiresAt,
          new Date(),
        ],
      ),
    );
    return created!;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new AppError(
      "conflict",
      "Another payment of this checkout is being reserved at the same moment: retry",
    );
  }
};

/** A spend entry without the columns a statement added to it. */
const entryOf = ({
  scoped: _s,
  counted: _c,
  ...entry
}: SpendEntry & { scoped?: boolean; counted?: boolean }) => entry as SpendEntry;

/**
 * Extends the expiry of a reservation reserveSpend took, while it is still held and live: what reserveSpend does for
 * a held reservation of the same scope and allowance covering the same amount, in one statement (a live reservation
 * already counts in every window, so a later expiry changes nothing another reservation sees now). False when it is
 * not held or live any more (reserve again then).
 */
export const extendHeldReservation = async (id: string, expiresAt: Date, now: Date): Promise<boolean> => {
  const changed = await query<{ id: string }>(sql`
    UPDATE spend_entries SET expires_at = GREATEST(expires_at, ${expiresAt})
    WHERE id = ${id} AND state = 'held' AND expires_at > ${now}
    RETURNING id`);
  return changed.length === 1;
};

/** Releases the scope's held reservation, if any (a failed prepare, a canceled checkout). */
export const releaseSpend = async (db: LedgerDb, scope: SpendScope): Promise<number> => {
  const { count } = await db.spendEntry.updateMany({
    where: { ...heldKey(scope), state: "held" },
    data: RELEASED,
  });
  return count;
};

/** The sweep: every held reservation past its expiry is released. Returns how many. */
export const releaseExpired = async (db: LedgerDb, now: Date): Promise<number> => {
  const { count } = await db.spendEntry.updateMany({
    where: { kind: "reservation", state: "held", expiresAt: { lt: now } },
    data: RELEASED,
  });
  return count;
};

/** The periodic worker's call (instrumentation.ts), after the crypto reconciliation of the same round. */
export const releaseExpiredSpend = async (now: Date = new Date()): Promise<number> =>
  releaseExpired(await getDb(), now);

/** The held reservation of a checkout (or of its group), if any. */
export const heldReservationOf = async (scope: SpendScope): Promise<SpendEntry | null> => {
  const [held] = await query<SpendEntry>(
    "checkoutId" in scope
      ? statementOf(
          `SELECT ${SPEND_ENTRY_COLUMNS} FROM spend_entries WHERE held_checkout_id = $1 AND state = 'held'`,
          [scope.checkoutId],
        )
      : statementOf(
          `SELECT ${SPEND_ENTRY_COLUMNS} FROM spend_entries WHERE held_group_id = $1 AND state = 'held'`,
          [scope.groupId],
        ),
  );
  return held ?? null;
};

/**
 * Debits an order, in the transaction that creates it: consumes the checkout's held reservation (else its group's,
 * one leg's share at the reservation's rate; else the last reservation of the checkout that expired before the
 * payment arrived: the money moved under it, so it is recorded). No reservation → nothing to debit (a card
 * completion without an intent mandate is the platform's own responsibility), returns null. Idempotent per order.
 * Sent through the driver adapter (lib/config/sql.ts), in the order's transaction on it (lib/orders/place-order.ts).
 */
export const debitSpend = async (
  tx: SqlQueryable,
  input: {
    checkoutId: string;
    groupId?: string | null;
    orderId: string;
    /** The order's total in the store's currency. */
    originAmount: number;
    originCurrency: string;
    storeId: string;
    now: Date;
  },
): Promise<SpendEntry | null> => {
  const groupId = input.groupId ?? null;
  // one read for the common cases (what an order's transaction pays for, since it runs on every completion): the
  // order's debit if written already, the checkout's or group's held reservation, the checkout's past reservations
  const candidates = await queryWith<SpendEntry>(
    tx,
    statementOf(
      `SELECT ${SPEND_ENTRY_COLUMNS} FROM spend_entries
       WHERE debit_order_id = $1 OR held_checkout_id = $2 OR (kind = 'reservation' AND checkout_id = $2)
          OR ($3::text IS NOT NULL AND held_group_id = $3)
       ORDER BY created_at DESC`,
      [input.orderId, input.checkoutId, groupId],
    ),
  );
  const done = candidates.find((e) => e.debitOrderId === input.orderId);
  if (done) return done;
  const isPast = (e: SpendEntry) =>
    e.kind === "reservation" && (e.state === "released" || e.state === "consumed");
  const reservation =
    candidates.find((e) => e.state === "held" && e.heldCheckoutId === input.checkoutId) ??
    (groupId ? candidates.find((e) => e.state === "held" && e.heldGroupId === groupId) : undefined) ??
    // else the last reservation that expired before the payment arrived (a group's: read apart, the rare path
    // of a combined payment that came late, since group_id has no index)
    (groupId
      ? (
          await queryWith<SpendEntry>(
            tx,
            statementOf(
              `SELECT ${SPEND_ENTRY_COLUMNS} FROM spend_entries
               WHERE kind = 'reservation' AND state IN ('released', 'consumed')
                 AND (checkout_id = $1 OR group_id = $2)
               ORDER BY created_at DESC LIMIT 1`,
              [input.checkoutId, groupId],
            ),
          )
        )[0]
      : candidates.find((e) => isPast(e) && e.checkoutId === input.checkoutId));
  if (!reservation) return null;
  // the allowance's row lock (lockAllowance's), then the reservation read again under it
  await tx.queryRaw(sql`SELECT id FROM intent_mandates WHERE id = ${reservation.allowanceId} FOR UPDATE`);
  const amount = atRecordedRate(input.originAmount, reservation, "up");
  const [fresh] = await queryWith<SpendEntry>(
    tx,
    statementOf(`SELECT ${SPEND_ENTRY_COLUMNS} FROM spend_entries WHERE id = $1`, [reservation.id]),
  );
  if (!fresh) throw new Error(`Spend entry ${reservation.id} vanished under its allowance's lock`);
  // the reservation's consumption goes with the debit's insert, in one statement (one round trip fewer in the
  // order's transaction): a data-modifying WITH runs whether or not the INSERT reads it, and both commit together
  let consume = "";
  const values: unknown[] = [
    newId("spendEntry"),
    reservation.allowanceId,
    amount,
    input.originAmount,
    input.originCurrency.toUpperCase(),
    input.checkoutId,
    reservation.groupId,
    input.storeId,
    input.orderId,
    reservation.id,
    input.now,
    new Date(),
  ];
  if (fresh.state === "held") {
    const consumed = fresh.consumed + amount;
    const whole = fresh.heldCheckoutId !== null || consumed >= fresh.amount;
    values.push(whole ? Math.min(consumed, fresh.amount) : consumed);
    consume = whole
      ? `WITH consumed AS (
           UPDATE spend_entries SET state = 'consumed', consumed = $13, held_checkout_id = NULL, held_group_id = NULL
           WHERE id = $10 RETURNING id)`
      : `WITH consumed AS (UPDATE spend_entries SET consumed = $13 WHERE id = $10 RETURNING id)`;
  }
  const [debit] = await queryWith<SpendEntry>(
    tx,
    statementOf(
      `${consume}
       INSERT INTO spend_entries (id, allowance_id, kind, state, amount, consumed, origin_amount, origin_currency,
         checkout_id, group_id, store_id, order_id, parent_id, debit_order_id, window_at, created_at)
       VALUES ($1, $2, 'debit', 'done', $3, 0, $4, $5, $6, $7, $8, $9, $10, $9, $11, $12)
       RETURNING ${SPEND_ENTRY_COLUMNS}`,
      values,
    ),
  );
  return debit!;
};

/**
 * Credits a refund or cancellation paid back to the buyer (in the transaction that records it as paid back), at
 * the order's debit rate rounded down, never more than what is left of that debit. Idempotent per adjustment;
 * null when the order was never debited.
 */
export const creditSpend = async (
  tx: LedgerDb,
  input: { orderId: string; adjustmentId: string; originAmount: number; now: Date },
): Promise<SpendEntry | null> => {
  const debit = await tx.spendEntry.findUnique({ where: { debitOrderId: input.orderId } });
  if (!debit) return null;
  const done = await tx.spendEntry.findUnique({ where: { adjustmentId: input.adjustmentId } });
  if (done) return done;
  await lockAllowanceOnPrisma(tx, debit.allowanceId);
  const credited = await tx.spendEntry.aggregate({
    where: { parentId: debit.id, kind: "credit" },
    _sum: { amount: true },
  });
  const amount = Math.min(
    atRecordedRate(input.originAmount, debit, "down"),
    debit.amount - (credited._sum.amount ?? 0),
  );
  if (amount <= 0) return null;
  return tx.spendEntry.create({
    data: {
      id: newId("spendEntry"),
      allowanceId: debit.allowanceId,
      kind: "credit",
      state: "done",
      amount,
      originAmount: input.originAmount,
      originCurrency: debit.originCurrency,
      checkoutId: debit.checkoutId,
      groupId: debit.groupId,
      storeId: debit.storeId,
      orderId: input.orderId,
      parentId: debit.id,
      adjustmentId: input.adjustmentId,
      windowAt: debit.windowAt,
    },
  });
};
