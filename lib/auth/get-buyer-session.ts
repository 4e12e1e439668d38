import "server-only";

import { getServerSession } from "next-auth";

import { getBuyer, type BuyerAccount } from "@/lib/buyers/sign-in-buyer";

import { getAuthOptions } from "./auth-options";

/** The signed-in buyer of a page or server action, or null. */
export const getBuyerSession = async (): Promise<BuyerAccount | null> => {
  const session = (await getServerSession(await getAuthOptions())) as { buyerId?: unknown } | null;
  if (!session || typeof session.buyerId !== "string") return null;
  return getBuyer(session.buyerId);
};
