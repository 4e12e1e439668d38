import "server-only";

import { getServerSession } from "next-auth";

import { getAccount, type AccountSummary } from "@/lib/accounts/accounts";

import { getAuthOptions } from "./auth-options";

/**
 * The signed-in merchant (or developer) account of a page or server action, or null. A session issued before the
 * account's password last changed is void (a reset signs out every other browser).
 */
export const getMerchantSession = async (): Promise<AccountSummary | null> => {
  const session = (await getServerSession(await getAuthOptions())) as {
    merchantAccountId?: unknown;
    issuedAt?: unknown;
  } | null;
  if (!session || typeof session.merchantAccountId !== "string") return null;
  const account = await getAccount(session.merchantAccountId);
  if (!account) return null;
  const issuedAt = typeof session.issuedAt === "number" ? session.issuedAt * 1000 : 0;
  // iat has whole seconds: a session from the same second as the change is from after it
  if (issuedAt < Math.floor(account.passwordChangedAt.getTime() / 1000) * 1000) return null;
  const { passwordChangedAt: _changed, ...summary } = account;
  return summary;
};
