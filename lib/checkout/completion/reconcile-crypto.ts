import "server-only";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { OPEN_STATES, updateAttemptState } from "@/lib/payments/attempts";
import { cryptoRail } from "@/lib/payments/crypto/crypto-rail";
import type { PaymentRail } from "@/lib/payments/rail";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { oweBackUnapproved } from "../crypto/landed-approval";
import { moveCheckout } from "../state";
import { finishPayment } from "./finish-payment";
import type { ReconciledPayment } from "./reconcile-payments";

// The crypto half of the reconciliation sweep. A crypto payment can land without anyone telling us: the buyer's
// wallet submitted the prepared bytes and the agent never came back, a completion died after the chain said yes, a
// digest was not final yet when the agent handed it over, or the buyer signed a prepare that a newer one replaced.
// So every open crypto attempt (current or not) is looked at on the chain through the rail port (its settled,
// submitted or prepared digest) and a landed one goes through the one finisher, which places the order or records
// the money as owed back. Nothing here moves money. A prepared transaction is watched for WATCH_MS after its
// quote window (after that the coins it spends have almost surely moved and it can never execute).

export const CRYPTO_WATCH_MS = 7 * 24 * 60 * 60_000;
/** Crypto payments are looked at sooner than card ones: nothing else (no webhook) tells us they landed. */
export const CRYPTO_RECONCILE_GRACE_MS = 20_000;

export const reconcileCryptoPayments = async ({
  now = new Date(),
  storeId,
  graceMs = CRYPTO_RECONCILE_GRACE_MS,
  limit = 50,
  rail = cryptoRail,
}: {
  now?: Date;
  storeId?: string;
  graceMs?: number;
  limit?: number;
  rail?: PaymentRail;
} = {}): Promise<ReconciledPayment[]> => {
  const db = await getDb();
  const attempts = await db.paymentAttempt.findMany({
    where: {
      rail: RAIL_HANDLER_IDS.crypto,
      providerRef: { not: null },
      updatedAt: { lt: new Date(now.getTime() - graceMs), gt: new Date(now.getTime() - CRYPTO_WATCH_MS) },
      ...(storeId ? { storeId } : {}),
      state: { in: [...OPEN_STATES, "refunding"] },
    },
    orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
    take: limit,
  });
  const stores = new Map<string, Store>();
  const storeOf = async (id: string) => {
    const store = stores.get(id) ?? (await db.store.findUniqueOrThrow({ where: { id } }));
    stores.set(store.id, store);
    return store;
  };
  const results: ReconciledPayment[] = [];
  const reporter =
    (checkoutId: string, store: Store, ref: string) =>
    (r: Omit<ReconciledPayment, "checkoutId" | "store" | "paymentIntentId">) =>
      results.push({ checkoutId, store: store.slug, paymentIntentId: ref, ...r });
  /** A payment the chain shows paid goes through the one finisher; what it did, as the sweep reports it. */
  const finish = async (store: Store, checkoutId: string, ref: string) => {
    const finished = await finishPayment(db, store, checkoutId, ref, { now, rail });
    return {
      result: finished.result,
      ...(finished.result === "order_placed" ? { orderId: finished.orderId } : { detail: finished.reason }),
    };
  };
  const seen = new Set<string>();
  /**
   * A combined payment that landed pays every checkout of its group: once one share is seen paid, the other
   * shares' open attempts are finished in the same pass (each claims its own legs through the one finisher), in
   * whichever store and however recently they were touched — the buyer paid once and every order is due.
   */
  const finishGroupOf = async (ref: string) => {
    const row = await db.cryptoPayment.findUnique({ where: { preparedDigest: ref } });
    if (!row?.groupId) return;
    const shares = await db.paymentAttempt.findMany({
      where: {
        rail: RAIL_HANDLER_IDS.crypto,
        state: { in: [...OPEN_STATES] },
        providerRef: {
          in: (
            await db.cryptoPayment.findMany({
              where: { groupId: row.groupId, preparedDigest: { not: ref } },
              select: { preparedDigest: true },
            })
          ).map((r) => r.preparedDigest),
        },
      },
    });
    for (const share of shares) {
      const shareRef = share.providerRef!;
      if (seen.has(shareRef)) continue;
      seen.add(shareRef);
      const store = await storeOf(share.storeId);
      const report = reporter(share.checkoutId, store, shareRef);
      try {
        const outcome = await rail.retrieve(store, shareRef);
        if (outcome.kind === "succeeded") report(await finish(store, share.checkoutId, shareRef));
      } catch (error) {
        report({ result: "error", detail: (error as Error).message });
      }
    }
  };
  for (const attempt of attempts) {
    const store = await storeOf(attempt.storeId);
    const ref = attempt.providerRef!;
    if (seen.has(ref)) continue;
    seen.add(ref);
    const report = reporter(attempt.checkoutId, store, ref);
    try {
      const outcome =
        attempt.state === "refunding"
          ? ({ kind: "succeeded", paymentRef: ref } as const)
          : await rail.retrieve(store, ref);
      if (outcome.kind === "succeeded") {
        report(await finish(store, attempt.checkoutId, ref));
        await finishGroupOf(ref);
        continue;
      }
      if (outcome.kind === "declined") {
        await updateAttemptState(db, ref, "declined");
        // the buyer's submitted payment failed: a held session reopens for another payment
        if (attempt.isCurrent) {
          await moveCheckout(db, {
            id: attempt.checkoutId,
            from: ["complete_in_progress"],
            to: "ready_for_complete",
          });
        }
        report({ result: "declined", detail: outcome.reason });
        continue;
      }
      // still unsigned, or not final on the chain yet: touched so the next batch moves on
      await db.paymentAttempt.updateMany({
        where: { id: attempt.id, state: attempt.state },
        data: { state: outcome.kind },
      });
      report({ result: "open", detail: outcome.kind });
    } catch (error) {
      report({ result: "error", detail: (error as Error).message });
    }
  }
  // DECISIONS B20: a buyer's payment that landed without room and that the buyer left undecided is owed back
  for (const lapsed of await oweBackUnapproved({ now, rail, limit, ...(storeId ? { storeId } : {}) })) {
    results.push({
      checkoutId: lapsed.checkoutId,
      store: lapsed.storeSlug,
      paymentIntentId: lapsed.providerRef,
      result: "refunded",
      detail: "the buyer did not approve it in time: owed back",
    });
  }
  return results;
};
