import "server-only";

import type { Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { OperationContext } from "@/lib/core/operation";
import type { SpendEntry, Store } from "@/lib/generated/prisma/client";
import { allowanceForPurchaseOrThrow, buyerWalletOf, spenderOfCheckout } from "@/lib/mandates/buyer-spend";
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
  return share?.groupId ? heldReservationOf({ groupId: share.groupId }) : null;
};

/**
 * Step 4, the buyer's spend allowance (DECISIONS B6, B20), before any charge or order. A purchase is the buyer's when
 * its checkout is bound to the pair buyer + agent (or a buyer's bearer created it): the pair comes from the checkout,
 * not the credential, so a platform-key completion of a bound checkout counts too.
 * - svc.crypto with a digest: a reservation the prepare took (payment-intent) and still held covers the payment —
 *   the wallet paid under it, so it completes whatever was spent elsewhere since (an ap2.intent_mandate sent too
 *   must still be the buyer's, for this agent and store). Otherwise the allowance reserves the total now.
 * - svc.card: a buyer's purchase reserves on the allowance the request names (ap2.intent_mandate), else on the
 *   newest active allowance of the pair that allows the store; none → mandate_required, no room →
 *   spend_cap_exceeded, before anything is charged. A completion that names an allowance for a platform's
 *   unbound checkout reserves on it the same way. A platform's unbound purchase without one is not a buyer's
 *   spend (seed §5 rule 1): nothing is read.
 * The order's transaction then debits the reservation (placeOrder), and refuses a buyer's purchase without one.
 * @throws AppError mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   mandate_revoked, allowance_paused, spend_cap_exceeded, identity_required, payment_provider_error (no FX rate)
 */
export const verifyIntentMandate = async (
  db: Db,
  ctx: OperationContext,
  input: {
    store: Store;
    session: { id: string; principalId: string; boundPrincipalId: string | null };
    priced: Priced;
    encoded: string | undefined;
    rail: "crypto" | "card";
  },
): Promise<SpendEntry | null> => {
  const { store, encoded, session } = input;
  const checkoutId = session.id;
  const total = input.priced.totals.find((t) => t.type === "total")?.amount ?? 0;
  const spender = spenderOfCheckout(session);
  if (input.rail === "card" && !spender && !encoded) return null;
  if (input.rail === "crypto" && (!spender || ctx.principal.kind !== "buyer")) {
    throw new AppError("identity_required", "A crypto completion needs the buyer");
  }
  const buyer = spender ? await buyerWalletOf(spender.buyerId) : null;
  if (spender && !buyer) {
    throw new AppError("identity_required", "The checkout's buyer account no longer exists");
  }
  if (input.rail === "crypto") {
    // the prepare's reservation: this checkout's own, or its combined payment's (one for the whole group)
    const held = (await heldReservationOf({ checkoutId })) ?? (await groupReservationOf(db, checkoutId));
    if (held && (held.expiresAt?.getTime() ?? 0) > ctx.now.getTime()) {
      if (encoded) {
        const payload = await readIntentMandate(encoded, ctx.now);
        assertIntentCovers(payload, {
          buyerAddress: buyer!.suiAddress,
          agent: spender!.clientId,
          merchant: store.slug,
          amountInAllowanceCurrency: 0,
        });
      }
      return held;
    }
  }
  const allowance = encoded
    ? await allowanceFromEnvelope(db, encoded, {
        buyerAddress: buyer?.suiAddress ?? null,
        agent: spender?.clientId ?? null,
        merchant: store.slug,
        now: ctx.now,
      })
    : await allowanceForPurchaseOrThrow(db, {
        spender: spender!,
        store,
        now: ctx.now,
        path: "$.ap2.intent_mandate",
        baseUrl: ctx.baseUrl,
      });
  return reserveCheckoutSpend(db, {
    allowance,
    store,
    checkoutId,
    amount: total,
    currency: store.currency,
    expiresAt: new Date(ctx.now.getTime() + CARD_RESERVATION_MS),
    now: ctx.now,
  });
};
