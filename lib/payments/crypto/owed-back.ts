import "server-only";

import { isUniqueViolation, type Db } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { CryptoOwedBack, Store } from "@/lib/generated/prisma/client";

import { chainForNetwork, type ChainPort } from "./chain";
import { formatUnits, isSameCoinType, normalizeAddress, settlementNetwork } from "./coins";
import { isTransactionDigest } from "./verify-digest";

// Crypto owed back to buyers (over-payments, a second or late payment that could not pay, refunds of crypto orders):
// the service holds no keys that could send crypto, so each record is a pending merchant action. The merchant sends
// the coins back from any wallet and closes the record with that transaction's digest, which is verified on the
// chain: final and successful, after the record was written, and the buyer's net receipt in every owed coin at least
// what is owed. A digest closes one record.

export type OwedAmount = {
  coin_type: string;
  symbol: string | null;
  decimals: number | null;
  amount: string;
};

export const owedAmountsOf = (row: Pick<CryptoOwedBack, "amounts">): OwedAmount[] =>
  Array.isArray(row.amounts) ? (row.amounts as OwedAmount[]) : [];

/** Open (or every) record of a store, oldest first. */
export const listStoreOwedBack = (db: Db, storeId: string, { all = false }: { all?: boolean } = {}) =>
  db.cryptoOwedBack.findMany({
    where: { storeId, ...(all ? {} : { status: "open" }) },
    orderBy: { createdAt: "asc" },
  });

/** What a buyer's wallet is owed back, in every store, newest first. */
export const listBuyerOwedBack = (db: Db, buyerAddress: string) =>
  db.cryptoOwedBack.findMany({ where: { buyerAddress }, orderBy: { createdAt: "desc" }, take: 100 });

const refuse = (message: string) => new AppError("invalid_request", message, { path: "$.refund_digest" });

/**
 * Closes an owed-back record of `store` with the refund transaction the merchant sent.
 * @throws AppError not_found (no such open record in this store), invalid_request (the transaction does not pay it
 *   back, or already closes another record), conflict (not final on the chain yet: try again),
 *   payment_provider_error (the node is unreachable)
 */
export const closeOwedBack = async (
  db: Db,
  store: Store,
  input: { id: string; refundDigest: string },
  chain: ChainPort = chainForNetwork(settlementNetwork(store)),
): Promise<CryptoOwedBack> => {
  const row = await db.cryptoOwedBack.findFirst({ where: { id: input.id, storeId: store.id } });
  if (!row)
    throw new AppError("not_found", `No money owed back "${input.id}" in this store`, { path: "$.id" });
  if (row.status === "closed") {
    if (row.refundDigest === input.refundDigest) return row;
    throw new AppError("invalid_request", `${row.id} was already closed by ${row.refundDigest}`, {
      path: "$.id",
    });
  }
  if (!isTransactionDigest(input.refundDigest))
    throw refuse("The refund digest is not a Sui transaction digest");
  const tx = await chain.getTransaction(input.refundDigest);
  if (!tx || tx.checkpoint === null || tx.timestampMs === null) {
    throw new AppError(
      "conflict",
      `Transaction ${input.refundDigest} is not final on the chain yet (or this node cannot see it): close the record again in a few seconds`,
      { path: "$.refund_digest" },
    );
  }
  if (!tx.success) throw refuse(`Transaction ${input.refundDigest} failed on chain: it paid nothing back`);
  if (tx.timestampMs < row.createdAt.getTime()) {
    throw refuse(`Transaction ${input.refundDigest} is older than what it should pay back`);
  }
  const buyer = normalizeAddress(row.buyerAddress);
  for (const owed of owedAmountsOf(row)) {
    const got = tx.balanceChanges
      .filter((c) => normalizeAddress(c.address) === buyer && isSameCoinType(c.coinType, owed.coin_type))
      .reduce((sum, c) => sum + c.amount, 0n);
    if (got < BigInt(owed.amount)) {
      throw refuse(
        `Transaction ${input.refundDigest} paid the buyer ${got} of ${owed.symbol ?? owed.coin_type} (base units); ${owed.amount} is owed`,
      );
    }
  }
  try {
    await db.cryptoOwedBack.updateMany({
      where: { id: row.id, status: "open" },
      data: { status: "closed", refundDigest: input.refundDigest, closedAt: new Date() },
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw refuse(`Transaction ${input.refundDigest} already closes another record`);
    }
    throw error;
  }
  const closed = await db.cryptoOwedBack.findUniqueOrThrow({ where: { id: row.id } });
  if (closed.refundDigest !== input.refundDigest) {
    throw new AppError("invalid_request", `${row.id} was closed meanwhile by ${closed.refundDigest}`, {
      path: "$.id",
    });
  }
  return closed;
};

export type OwedBackView = {
  id: string;
  checkoutId: string;
  status: string;
  reason: string;
  /** Per coin: base units, and the same with the coin's decimals ("25.5 USDC"). */
  amounts: { symbol: string; amount: string; text: string }[];
  paymentDigest: string;
  refundDigest: string | null;
};

/** The records of these checkouts as a buyer's page shows them, oldest first. */
export const owedBackOfCheckouts = async (db: Db, checkoutIds: string[]): Promise<OwedBackView[]> => {
  if (checkoutIds.length === 0) return [];
  const rows = await db.cryptoOwedBack.findMany({
    where: { checkoutId: { in: checkoutIds } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((r) => ({
    id: r.id,
    checkoutId: r.checkoutId,
    status: r.status,
    reason: r.reason,
    amounts: owedAmountsOf(r).map((a) => {
      const symbol = a.symbol ?? a.coin_type;
      return {
        symbol,
        amount: a.amount,
        text: `${a.decimals === null ? a.amount : formatUnits(a.amount, a.decimals)} ${symbol}`,
      };
    }),
    paymentDigest: r.paymentDigest,
    refundDigest: r.refundDigest,
  }));
};
