"use server";

import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import {
  payGroupOnWalletPage,
  recheckGroupPayment,
  settleGroupDigestOnWalletPage,
  type GroupPayResult,
} from "@/lib/checkout/crypto/group-wallet-page";
import { walletAction, type WalletActionResult } from "@/lib/checkout/crypto/wallet-page";

// The combined payment page's server actions (Next checks their origin): the signed-in buyer from the session
// cookie, everything else in lib/checkout/crypto/group-wallet-page.ts, where the browser's arguments are checked.

export async function payGroupWithWallet(
  token: string,
  transaction: string,
  signature: string,
): Promise<WalletActionResult<GroupPayResult>> {
  const viewer = await getBuyerSession();
  return walletAction(() => payGroupOnWalletPage({ token, viewer, transaction, signature }));
}

export async function settleGroupDigest(
  token: string,
  digest: string,
): Promise<WalletActionResult<GroupPayResult>> {
  const viewer = await getBuyerSession();
  return walletAction(() => settleGroupDigestOnWalletPage({ token, viewer, digest }));
}

export async function recheckGroupPaymentAction(
  token: string,
): Promise<WalletActionResult<GroupPayResult | null>> {
  return walletAction(() => recheckGroupPayment({ token }));
}
