import "server-only";

import type { Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { rowCache } from "@/lib/config/row-cache";
import { query, sql } from "@/lib/config/sql";
import type { ErrorCode } from "@/lib/core/error-codes";
import { AppError, isAppError } from "@/lib/core/errors";
import type { IntentMandate, SpendEntry, Store } from "@/lib/generated/prisma/client";

import { allowanceForPrepare, allowsStore, reserveCheckoutSpend } from "./spend-for-checkout";

// Whose spend a purchase is (DECISIONS B20). A checkout bound to the pair buyer + agent (B17: its bound principal,
// or its creator when a buyer's bearer created it) is that buyer's purchase through that agent, on every rail and
// every path that can make its order: the agent's allowance limits it. A checkout only the buyer holds
// (`buyer:<id>`, the buyer's own wallet page) is the buyer's own purchase, approved by them: no agent's allowance.
// A platform-key checkout nobody bound is the platform's purchase, not a buyer's spend.

/** The buyer and agent a purchase is charged to, or null when it is no agent's spend for a buyer. */
export type Spender = { buyerId: string; clientId: string };

const AGENT = ":agent:";

/** The pair behind a principal id `buyer:<buyerId>:agent:<clientId>` (client ids may hold colons), else null. */
export const spenderOfPrincipal = (principalId: string | null | undefined): Spender | null => {
  if (!principalId?.startsWith("buyer:")) return null;
  const at = principalId.indexOf(AGENT);
  if (at < 0) return null;
  const buyerId = principalId.slice("buyer:".length, at);
  const clientId = principalId.slice(at + AGENT.length);
  return buyerId && clientId ? { buyerId, clientId } : null;
};

/** The spender of a checkout: its binding, else its creator when that is a buyer's bearer. */
export const spenderOfCheckout = (checkout: {
  principalId: string;
  boundPrincipalId: string | null;
}): Spender | null => spenderOfPrincipal(checkout.boundPrincipalId ?? checkout.principalId);

/** Where the buyer signs, raises or resumes an allowance. */
export const spendCapsUrl = (baseUrl: string = getBaseUrl()): string => `${baseUrl}/account/spend-caps`;

/** No allowance of the buyer for this agent covers the purchase: refused, with where the buyer signs one. */
export const mandateRequired = (path: string, baseUrl?: string): AppError =>
  new AppError(
    "mandate_required",
    `The buyer has not given this agent an allowance that covers this store: an agent pays for a buyer only within an allowance the buyer signed with their wallet. Send the buyer to continue_url (the spend-cap page) to sign one, then retry (or send it as ap2.intent_mandate)`,
    { path, details: { continue_url: spendCapsUrl(baseUrl) } },
  );

/** The codes that mean "no room for this purchase on the buyer's allowance" (not a malformed request). */
const ROOM_CODES: readonly ErrorCode[] = [
  "mandate_required",
  "spend_cap_exceeded",
  "allowance_paused",
  "mandate_revoked",
  "mandate_expired",
];

export const isNoRoom = (error: unknown): error is AppError =>
  isAppError(error) && ROOM_CODES.includes(error.code);

/**
 * The allowance a buyer's purchase is charged to when the request names none: the newest active allowance of the
 * pair that allows the store, else mandate_required (with where to sign one).
 */
export const allowanceForPurchaseOrThrow = async (
  db: Db,
  input: { spender: Spender; store: Store; now: Date; path: string; baseUrl?: string },
): Promise<IntentMandate> => {
  const allowance = await allowanceForPrepare(db, {
    buyerId: input.spender.buyerId,
    clientId: input.spender.clientId,
    merchant: input.store.slug,
    now: input.now,
  });
  if (!allowance) throw mandateRequired(input.path, input.baseUrl);
  return allowance;
};

/**
 * Reserves a buyer's purchase on its allowance where the order is about to be placed and no live reservation
 * covers it (the prepare's expired, none was ever taken, a webhook or the sweep found the payment): the allowance
 * of the checkout's last reservation when it is still active, else the newest active one of the pair. `force`: the
 * buyer approved this very payment, so the windows are not checked (the debit still records it).
 * @throws AppError the no-room codes (isNoRoom) and reserveCheckoutSpend's
 */
export const reserveAtPlacement = async (
  db: Db,
  input: {
    spender: Spender;
    store: Store;
    checkoutId: string;
    amount: number;
    currency: string;
    now: Date;
    expiresAt: Date;
    force?: boolean;
  },
): Promise<SpendEntry> => {
  const last = await db.spendEntry.findFirst({
    where: { checkoutId: input.checkoutId, kind: "reservation" },
    orderBy: { createdAt: "desc" },
    select: { allowanceId: true },
  });
  const previous = last
    ? await db.intentMandate.findFirst({
        where: {
          id: last.allowanceId,
          buyerId: input.spender.buyerId,
          clientId: input.spender.clientId,
          revokedAt: null,
          pausedAt: null,
          expiresAt: { gt: input.now },
        },
      })
    : null;
  const allowance =
    previous && allowsStore(previous, input.store.slug)
      ? previous
      : await allowanceForPurchaseOrThrow(db, {
          spender: input.spender,
          store: input.store,
          now: input.now,
          path: "$.ap2.intent_mandate",
        });
  return reserveCheckoutSpend(db, {
    allowance,
    store: input.store,
    checkoutId: input.checkoutId,
    amount: input.amount,
    currency: input.currency,
    expiresAt: input.expiresAt,
    now: input.now,
    force: input.force ?? false,
  });
};

/**
 * A buyer's wallet is who the buyer is: written when the account is created and never changed. It is asked for
 * on every crypto prepare and completion, so it is kept in the row cache (lib/config/row-cache.ts) as a store or a
 * key is: any write to `buyers` this process makes empties it, an account that is not found is never kept.
 */
const wallets = rowCache<{ suiAddress: string }>("buyers");

/** The wallet of a buyer account (null when the account is gone); read through the driver adapter when not kept. */
export const buyerWalletOf = (buyerId: string): Promise<{ suiAddress: string } | null> =>
  wallets.get(buyerId, async () => {
    const [buyer] = await query<{ suiAddress: string }>(
      sql`SELECT sui_address AS "suiAddress" FROM buyers WHERE id = ${buyerId}`,
    );
    return buyer ?? null;
  });
