import "server-only";

import type { Db } from "@/lib/config/db";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

// Receipts of crypto orders (issue "Receipts"): each order shows its leg(s) of the transaction that paid it (coin,
// amount in base units, digest), and an order paid by a combined payment names its group and every checkout of
// the group with its order, or null while that checkout is not completed yet (a group paid but only partly
// completed is visible to the buyer; a retry or the sweep finishes it). Read for list_my_orders, get_my_order and
// the buyer's orders page.

export type CryptoLegReceipt = { coin_type: string; symbol: string; decimals: number; amount: string };

export type CryptoReceipt = {
  crypto_payment: { transaction_digest: string; legs: CryptoLegReceipt[] };
  payment_group?: {
    id: string;
    transaction_digest: string;
    checkouts: { store_slug: string; checkout_id: string; order_id: string | null }[];
  };
};

type GroupCheckout = { store_slug: string; checkout_id: string };

/** Receipts by order id, for the crypto orders among `orders` (others have none). */
export const cryptoReceiptsOf = async (
  db: Db,
  orders: readonly { id: string; handlerId: string | null; paymentRef: string | null }[],
): Promise<Map<string, CryptoReceipt>> => {
  const crypto = orders.filter((o) => o.handlerId === RAIL_HANDLER_IDS.crypto && o.paymentRef);
  const out = new Map<string, CryptoReceipt>();
  if (crypto.length === 0) return out;
  const rows = await db.cryptoPayment.findMany({
    where: { preparedDigest: { in: crypto.map((o) => o.paymentRef!) } },
  });
  const groupIds = [...new Set(rows.flatMap((r) => (r.groupId ? [r.groupId] : [])))];
  const groups = groupIds.length
    ? await db.cryptoPaymentGroup.findMany({ where: { id: { in: groupIds } } })
    : [];
  const groupCheckouts = groups.flatMap((g) => g.checkouts as GroupCheckout[]);
  const placed = groupCheckouts.length
    ? await db.order.findMany({
        where: { checkoutId: { in: groupCheckouts.map((c) => c.checkout_id) } },
        select: { id: true, checkoutId: true },
      })
    : [];
  for (const order of crypto) {
    const row = rows.find((r) => r.preparedDigest === order.paymentRef);
    if (!row) continue;
    const digest = row.settledDigest ?? row.transactionDigest ?? row.preparedDigest;
    const quoted = ((row.quote as { legs?: CryptoLegReceipt[] }).legs ?? []).map((l) => ({
      coin_type: l.coin_type,
      symbol: l.symbol,
      decimals: l.decimals,
      amount: l.amount,
    }));
    const group = row.groupId ? groups.find((g) => g.id === row.groupId) : undefined;
    out.set(order.id, {
      crypto_payment: { transaction_digest: digest, legs: quoted },
      ...(group
        ? {
            payment_group: {
              id: group.id,
              transaction_digest: digest,
              checkouts: (group.checkouts as GroupCheckout[]).map((c) => ({
                store_slug: c.store_slug,
                checkout_id: c.checkout_id,
                order_id: placed.find((p) => p.checkoutId === c.checkout_id)?.id ?? null,
              })),
            },
          }
        : {}),
    });
  }
  return out;
};
