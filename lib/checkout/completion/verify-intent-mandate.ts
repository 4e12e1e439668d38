import "server-only";

import type { Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { OperationContext } from "@/lib/core/operation";
import type { SpendEntry, Store } from "@/lib/generated/prisma/client";
import { assertIntentCovers, readIntentMandate } from "@/lib/mandates/intent-mandate";
import {
  allowanceFromEnvelope,
  CARD_RESERVATION_MS,
  reserveCheckoutSpend,
} from "@/lib/mandates/spend-for-checkout";
import { heldReservationOf } from "@/lib/mandates/spend-ledger";

import type { priceCheckout } from "../price-checkout";

type Priced = Awaited<ReturnType<typeof priceCheckout>>;

/** The held reservation of the combined payment this checkout was last prepared in, if any. */
const groupReservationOf = async (db: Db, checkoutId: string): Promise<SpendEntry | null> => {
  const share = await db.cryptoPayment.findFirst({
    where: { checkoutId, groupId: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { groupId: true },
  });
  return share?.groupId ? heldReservationOf(db, { groupId: share.groupId }) : null;
};

/**
 * Step 4, the buyer's spend allowance (DECISIONS B6), before any charge or order:
 * - svc.crypto with a digest: a reservation the prepare took (payment-intent) and still held covers the payment —
 *   the wallet paid under it, so it completes whatever was spent elsewhere since (an ap2.intent_mandate sent too
 *   must still be the buyer's, for this agent and store). Without one, ap2.intent_mandate is required and its
 *   allowance reserves the total now (limits checked under the ledger's lock).
 * - svc.card: a completion that carries ap2.intent_mandate reserves on its allowance the same way (the agent is
 *   checked when the bearer names it; with a platform key the allowance's agent must still be linked). Without
 *   one nothing is counted: a platform-key completion does not load the buyer (seed §5 rule 1), so the platform
 *   answers for its own spend.
 * The order's transaction then debits the reservation (placeOrder), so over a limit nothing is charged or placed.
 * @throws AppError mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   mandate_revoked, allowance_paused, spend_cap_exceeded, identity_required, payment_provider_error (no FX rate)
 */
export const verifyIntentMandate = async (
  db: Db,
  ctx: OperationContext,
  input: {
    store: Store;
    checkoutId: string;
    priced: Priced;
    encoded: string | undefined;
    rail: "crypto" | "card";
  },
): Promise<SpendEntry | null> => {
  const { store, encoded } = input;
  const total = input.priced.totals.find((t) => t.type === "total")?.amount ?? 0;
  const buyer =
    ctx.principal.kind === "buyer"
      ? await db.buyer.findUnique({ where: { id: ctx.principal.buyerId }, select: { suiAddress: true } })
      : null;
  if (ctx.principal.kind === "buyer" && !buyer) {
    throw new AppError("identity_required", "The bearer's buyer account no longer exists");
  }
  const agent = ctx.principal.kind === "buyer" ? ctx.principal.clientId : null;
  if (input.rail === "crypto") {
    if (!buyer || !agent) throw new AppError("identity_required", "A crypto completion needs the buyer");
    // the prepare's reservation: this checkout's own, or its combined payment's (one for the whole group)
    const held =
      (await heldReservationOf(db, { checkoutId: input.checkoutId })) ??
      (await groupReservationOf(db, input.checkoutId));
    if (held && (held.expiresAt?.getTime() ?? 0) > ctx.now.getTime()) {
      if (encoded) {
        const payload = await readIntentMandate(encoded, ctx.now);
        assertIntentCovers(payload, {
          buyerAddress: buyer.suiAddress,
          agent,
          merchant: store.slug,
          amountInAllowanceCurrency: 0,
        });
      }
      return held;
    }
  } else if (!encoded) {
    return null;
  }
  const allowance = await allowanceFromEnvelope(db, encoded, {
    buyerAddress: buyer?.suiAddress ?? null,
    agent,
    merchant: store.slug,
    now: ctx.now,
  });
  return reserveCheckoutSpend(db, {
    allowance,
    store,
    checkoutId: input.checkoutId,
    amount: total,
    currency: store.currency,
    expiresAt: new Date(ctx.now.getTime() + CARD_RESERVATION_MS),
    now: ctx.now,
  });
};
