import "server-only";

import type { BuyerAccount } from "@/lib/buyers/sign-in-buyer";
import { getDb, type Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { PaymentAttempt, Store } from "@/lib/generated/prisma/client";
import { spenderOfCheckout } from "@/lib/mandates/buyer-spend";
import { cryptoRail } from "@/lib/payments/crypto/crypto-rail";
import type { PaymentRail } from "@/lib/payments/rail";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { PAGE_TOKEN } from "../checkout-record";
import { APPROVAL_WINDOW_MS, finishPayment, refundSupersededPayment } from "../completion/finish-payment";
import { moveCheckout } from "../state";

// A buyer's crypto payment that landed without room on their allowance for the agent (DECISIONS B20) waits for the
// buyer: it is not made into an order behind their back, and the chain cannot give it back by itself. At the
// checkout's payment link (its continue_url) the buyer, signed in with their wallet, approves it — the order is
// placed and the allowance records it — or declines it — the money is owed back to them. Left undecided for
// APPROVAL_WINDOW_MS, the crypto sweep owes it back (oweBackUnapproved, from reconcileCryptoPayments).

export type LandedPayment = {
  checkoutId: string;
  store: { slug: string; name: string };
  /** What landed, minor units of `currency`. */
  amount: number;
  currency: string;
  /** The checkout's total now. */
  total: number;
  /** The buyer whose agent's purchase this is (only they may decide). */
  buyerId: string;
  /** The agent (OAuth client id) that made the purchase, and its name as the buyer linked it. */
  clientId: string;
  agentName: string;
  /** Past this, the sweep owes it back. */
  decideBy: Date;
};

const awaitingOf = (db: Db, checkoutId: string): Promise<PaymentAttempt | null> =>
  db.paymentAttempt.findFirst({
    where: { checkoutId, rail: RAIL_HANDLER_IDS.crypto, state: "awaiting_approval" },
    orderBy: { updatedAt: "desc" },
  });

const linkOf = async (db: Db, slug: string, token: string) => {
  if (!PAGE_TOKEN.test(token)) return null;
  return db.checkoutSession.findFirst({
    where: { continueToken: token, store: { slug }, status: "requires_escalation" },
    include: { store: true },
  });
};

/** The payment waiting for the buyer at this payment link, if any. */
export const landedPaymentAt = async (slug: string, token: string): Promise<LandedPayment | null> => {
  const db = await getDb();
  const session = await linkOf(db, slug, token);
  if (!session) return null;
  const spender = spenderOfCheckout(session);
  const attempt = spender ? await awaitingOf(db, session.id) : null;
  if (!attempt || !spender) return null;
  const total =
    (session.totals as { type: string; amount: number }[] | null)?.find((t) => t.type === "total")?.amount ??
    0;
  const consent = await db.buyerConsent.findUnique({
    where: { buyerId_clientId: { buyerId: spender.buyerId, clientId: spender.clientId } },
    select: { clientName: true },
  });
  return {
    checkoutId: session.id,
    store: { slug: session.store.slug, name: session.store.name },
    amount: attempt.amount,
    currency: attempt.currency,
    total,
    buyerId: spender.buyerId,
    clientId: spender.clientId,
    agentName: consent?.clientName ?? "your agent",
    decideBy: new Date(attempt.updatedAt.getTime() + APPROVAL_WINDOW_MS),
  };
};

/**
 * Owes a landed payment back to the buyer (intent first, as every refund: the attempt is `refunding` before the
 * owed-back record, then `refunded`) and reopens its checkout for another payment, its link kept.
 */
const oweBack = async (
  db: Db,
  store: Store,
  attempt: PaymentAttempt,
  reason: string,
  rail: PaymentRail,
): Promise<void> => {
  // the payment may have become its checkout's order since it was read (approved, or room freed and a retry
  // placed it): then it is the order's payment, never owed back
  const order = await db.order.findUnique({
    where: { checkoutId: attempt.checkoutId },
    select: { paymentRef: true },
  });
  if (order?.paymentRef === attempt.providerRef) {
    await db.paymentAttempt.updateMany({
      where: { id: attempt.id, state: "awaiting_approval" },
      data: { state: "succeeded" },
    });
    return;
  }
  await refundSupersededPayment(db, store, {
    checkoutId: attempt.checkoutId,
    providerRef: attempt.providerRef!,
    rail,
    reason,
  });
  await moveCheckout(db, {
    id: attempt.checkoutId,
    from: ["requires_escalation"],
    to: "ready_for_complete",
  });
};

/**
 * The buyer's decision on the payment waiting at their payment link.
 * @throws AppError identity_required (not signed in), not_found (no payment waits here, or it is another buyer's)
 */
export const decideLandedPayment = async (input: {
  slug: string;
  token: string;
  viewer: BuyerAccount | null;
  decision: "approve" | "decline";
  now?: Date;
  rail?: PaymentRail;
}): Promise<{ kind: "order_placed"; orderId: string; checkoutId: string } | { kind: "owed_back" }> => {
  const now = input.now ?? new Date();
  const rail = input.rail ?? cryptoRail;
  if (!input.viewer) {
    throw new AppError("identity_required", "Sign in with your wallet to approve or decline this payment");
  }
  const db = await getDb();
  const session = await linkOf(db, input.slug, input.token);
  const spender = session ? spenderOfCheckout(session) : null;
  const attempt = session && spender ? await awaitingOf(db, session.id) : null;
  // another buyer's link answers as if there were none: it tells nothing about their payment
  if (!session || !spender || !attempt || spender.buyerId !== input.viewer.id) {
    throw new AppError("not_found", "No payment waits for your approval at this link");
  }
  if (input.decision === "decline") {
    await oweBack(db, session.store, attempt, "the buyer declined it (it was over their allowance)", rail);
    return { kind: "owed_back" };
  }
  const finished = await finishPayment(db, session.store, session.id, attempt.providerRef!, {
    now,
    rail,
    spendApproved: true,
  });
  if (finished.result === "order_placed") {
    return { kind: "order_placed", orderId: finished.orderId, checkoutId: session.id };
  }
  throw new AppError(
    "checkout_not_modifiable",
    `The payment could not be made into an order: ${finished.reason}`,
  );
};

/**
 * The sweep: every landed payment left undecided past APPROVAL_WINDOW_MS is owed back to its buyer. Returns what
 * it owed back.
 */
export const oweBackUnapproved = async ({
  now = new Date(),
  rail = cryptoRail,
  limit = 50,
  storeId,
}: { now?: Date; rail?: PaymentRail; limit?: number; storeId?: string } = {}): Promise<
  { checkoutId: string; storeId: string; storeSlug: string; providerRef: string }[]
> => {
  const db = await getDb();
  const lapsed = await db.paymentAttempt.findMany({
    where: {
      rail: RAIL_HANDLER_IDS.crypto,
      state: "awaiting_approval",
      updatedAt: { lt: new Date(now.getTime() - APPROVAL_WINDOW_MS) },
      ...(storeId ? { storeId } : {}),
    },
    orderBy: { updatedAt: "asc" },
    take: limit,
  });
  const done = [];
  for (const attempt of lapsed) {
    const store = await db.store.findUniqueOrThrow({ where: { id: attempt.storeId } });
    await oweBack(db, store, attempt, "the buyer did not approve it within 24 hours", rail);
    done.push({
      checkoutId: attempt.checkoutId,
      storeId: store.id,
      storeSlug: store.slug,
      providerRef: attempt.providerRef!,
    });
  }
  return done;
};
