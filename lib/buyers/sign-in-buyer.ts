import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";

export type BuyerAccount = { id: string; suiAddress: string };

/** Finds the buyer of a verified wallet address, creating the account on first sign-in. */
export const signInBuyer = async (suiAddress: string, now = new Date()): Promise<BuyerAccount> => {
  const db = await getDb();
  const row = await db.buyer.upsert({
    where: { suiAddress },
    create: { id: newId("buyer"), suiAddress, createdAt: now, lastLoginAt: now },
    update: { lastLoginAt: now },
  });
  return { id: row.id, suiAddress: row.suiAddress };
};

export const getBuyer = async (buyerId: string): Promise<BuyerAccount | null> => {
  const db = await getDb();
  const row = await db.buyer.findUnique({ where: { id: buyerId } });
  return row ? { id: row.id, suiAddress: row.suiAddress } : null;
};
