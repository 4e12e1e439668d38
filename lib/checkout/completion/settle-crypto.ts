import "server-only";

import type { Db } from "@/lib/config/db";
import { faultPoint } from "@/lib/config/fault-point";
import { AppError } from "@/lib/core/errors";
import type { CryptoPayment, Store } from "@/lib/generated/prisma/client";
import { currentAttempt, updateAttemptState } from "@/lib/payments/attempts";
import { findPrepared, type CryptoRail } from "@/lib/payments/crypto/crypto-rail";
import { isTransactionDigest } from "@/lib/payments/crypto/verify-digest";
import type { PaymentRail } from "@/lib/payments/rail";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import type { CheckoutRecord } from "../checkout-record";
import { moveCheckout } from "../state";
import { finishPayment } from "./finish-payment";

// Step 6 for svc.crypto: the digest the buyer's wallet produced settles the checkout's prepared payment. Which
// prepared payment: the one whose bytes have this digest (the current one, or a replaced one the buyer signed
// earlier, or this checkout's share of a combined payment), else — a wallet that re-gassed our transaction — the
// current one, judged on its legs. The rail judges
// the digest on the chain and claims it; a success goes through the one finisher, which places the order or, when
// it cannot pay for it (another payment holds the order, the checkout's total grew since the prepare), records the
// money as owed back. Used by complete_checkout (after the mandates) and by the buyer's wallet page.

export type CryptoSettlement =
  /** checkout: as the order's transaction completed it, when this call placed the order. */
  | { kind: "order_placed"; orderId: string; checkout?: CheckoutRecord }
  /** Not final on the chain yet (or the node is unreachable): retry with the same digest; never pay again. */
  | { kind: "pending"; digest: string }
  /** It cannot pay for the order; `reason` says why and whether what arrived is owed back. */
  | { kind: "failed"; reason: string }
  /** It landed without room on the buyer's allowance: the buyer approves or declines it (DECISIONS B20). */
  | { kind: "awaiting_approval"; reason: string };

/**
 * The prepared payment a digest settles.
 * @throws AppError invalid_request (not a digest; nothing prepared yet)
 */
export const preparedFor = async (
  db: Db,
  checkoutId: string,
  digest: string,
  path: string,
): Promise<string> => (await preparedPaymentFor(db, checkoutId, digest, path)).ref;

/**
 * preparedFor, with the prepared payment itself when the digest is its own (the common case: the wallet signed the
 * bytes as built), so the settlement does not read it again.
 * @throws AppError invalid_request (not a digest; nothing prepared yet)
 */
export const preparedPaymentFor = async (
  db: Db,
  checkoutId: string,
  digest: string,
  path: string,
): Promise<{ ref: string; row?: CryptoPayment }> => {
  if (!isTransactionDigest(digest)) {
    throw new AppError("invalid_request", "The credential token must be a Sui transaction digest (base58)", {
      path,
    });
  }
  const own = await findPrepared(digest);
  if (own?.checkoutId === checkoutId) return { ref: own.preparedDigest, row: own };
  // this checkout's share of a combined payment whose transaction has this digest (each checkout of the group is
  // completed at its own store with the one digest and claims its own legs)
  const share = await db.cryptoPayment.findFirst({ where: { transactionDigest: digest, checkoutId } });
  if (share) return { ref: share.preparedDigest };
  const settledHere = await db.cryptoPayment.findFirst({ where: { checkoutId, settledDigest: digest } });
  if (settledHere) return { ref: settledHere.preparedDigest };
  const current = await currentAttempt(db, checkoutId);
  if (current?.rail === RAIL_HANDLER_IDS.crypto && current.providerRef) return { ref: current.providerRef };
  throw new AppError(
    "invalid_request",
    "No crypto payment was prepared for this checkout: call payment-intent (prepare_checkout_payment) first, have the buyer sign it, then complete with its digest",
    { path },
  );
};

export const settleCrypto = async (
  db: Db,
  input: {
    store: Store;
    checkoutId: string;
    digest: string;
    rail: PaymentRail;
    now: Date;
    /** JSONPath of the digest in the request, for errors. */
    path: string;
    /** The prepared payment the digest settles, when the caller found it already (preparedPaymentFor). */
    ref?: string;
    /** That prepared payment as the caller read it (preparedPaymentFor's row): settled without reading it again. */
    row?: CryptoPayment;
    /** The caller renders the completed checkout: an order placed here hands it back (`checkout`). */
    withCheckout?: boolean;
    /**
     * The buyer signed this payment themselves on the payment page: it is theirs whatever room their agent's
     * allowance has (recorded on it when there is one; DECISIONS B20).
     */
    approvedByBuyer?: boolean;
  },
): Promise<CryptoSettlement> => {
  const { store, checkoutId, digest, rail } = input;
  const ref = input.ref ?? (await preparedFor(db, checkoutId, digest, input.path));
  const row = input.row?.preparedDigest === ref ? input.row : undefined;
  const settlePrepared = (rail as Partial<CryptoRail>).settlePrepared;
  const outcome =
    row && settlePrepared
      ? await settlePrepared(store, row, digest)
      : await rail.settle(store, ref, { type: "transaction_digest", digest }, "");
  if (outcome.kind === "processing") {
    await updateAttemptState(db, ref, "processing");
    return { kind: "pending", digest };
  }
  if (outcome.kind === "declined") {
    // the prepared payment stays open when the buyer may still sign it; a failed transaction spent its coins' gas only
    return { kind: "failed", reason: outcome.reason };
  }
  if (outcome.kind !== "succeeded") return { kind: "pending", digest };
  // the crash test's moment: the chain took the money and the digest is claimed; the order is not placed yet
  faultPoint("crash-after-charge");
  const finished = await finishPayment(db, store, checkoutId, ref, {
    now: input.now,
    rail,
    spendApproved: input.approvedByBuyer ?? false,
    withCheckout: input.withCheckout ?? false,
    ...(row ? { cryptoGroupId: row.groupId } : {}),
  });
  if (finished.result === "order_placed") {
    return {
      kind: "order_placed",
      orderId: finished.orderId,
      ...(finished.checkout ? { checkout: finished.checkout } : {}),
    };
  }
  if (finished.result === "awaiting_approval") return { kind: "awaiting_approval", reason: finished.reason };
  // another payment already paid for the order: the checkout is completed (this one is owed back)
  const order = await db.order.findUnique({ where: { checkoutId }, select: { id: true } });
  if (order) return { kind: "order_placed", orderId: order.id };
  // a payment that cannot pay for the order was recorded as owed back; the session reopens for a payment that can
  await moveCheckout(db, {
    id: checkoutId,
    from: ["complete_in_progress", "requires_escalation"],
    to: "ready_for_complete",
  });
  return {
    kind: "failed",
    reason: `${finished.reason}; the payment ${digest} is recorded as owed back to the buyer`,
  };
};
