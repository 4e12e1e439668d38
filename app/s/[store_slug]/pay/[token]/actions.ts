"use server";

import { redirect } from "next/navigation";

import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { decideLandedPayment } from "@/lib/checkout/crypto/landed-approval";
import {
  payOnWalletPage,
  prepareOnWalletPage,
  recheckWalletPayment,
  saveAllowanceOnWalletPage,
  settleDigestOnWalletPage,
  walletAction,
  withPaidUrl,
  type AllowanceSaved,
  type WalletActionResult,
  type WalletPayAnswer,
  type WalletQuote,
} from "@/lib/checkout/crypto/wallet-page";
import { getBaseUrl } from "@/lib/config/env";

// The wallet page's server actions (Next checks their origin): the signed-in buyer from the session cookie, all
// the rest in lib/checkout/crypto/wallet-page.ts. Arguments come from the browser and are checked there.

export async function prepareWalletQuote(
  slug: string,
  token: string,
  coin: string,
): Promise<WalletActionResult<WalletQuote>> {
  const viewer = await getBuyerSession();
  return walletAction(() => prepareOnWalletPage({ slug, token, viewer, coin, baseUrl: getBaseUrl() }));
}

export async function payWithWallet(
  slug: string,
  token: string,
  transaction: string,
  signature: string,
): Promise<WalletActionResult<WalletPayAnswer>> {
  const viewer = await getBuyerSession();
  return walletAction(async () =>
    withPaidUrl(slug, token, await payOnWalletPage({ slug, token, viewer, transaction, signature })),
  );
}

export async function settleWalletDigest(
  slug: string,
  token: string,
  digest: string,
): Promise<WalletActionResult<WalletPayAnswer>> {
  const viewer = await getBuyerSession();
  return walletAction(async () =>
    withPaidUrl(slug, token, await settleDigestOnWalletPage({ slug, token, viewer, digest })),
  );
}

export async function recheckWalletPaymentAction(
  slug: string,
  token: string,
): Promise<WalletActionResult<WalletPayAnswer>> {
  return walletAction(async () => withPaidUrl(slug, token, await recheckWalletPayment({ slug, token })));
}

export async function saveWalletAllowance(
  slug: string,
  token: string,
  envelope: string,
): Promise<WalletActionResult<AllowanceSaved>> {
  const viewer = await getBuyerSession();
  return walletAction(() => saveAllowanceOnWalletPage({ slug, token, viewer, envelope }));
}

/**
 * The buyer's decision on a payment that landed over their agent's allowance (DECISIONS B20): approved → the order
 * and its receipt; declined → owed back, and the link reopens for another payment.
 */
export async function decideLandedPaymentAction(
  slug: string,
  token: string,
  decision: "approve" | "decline",
): Promise<void> {
  const here = `/s/${encodeURIComponent(slug)}/pay/${encodeURIComponent(token)}`;
  let target = here;
  try {
    const decided = await decideLandedPayment({
      slug,
      token,
      viewer: await getBuyerSession(),
      decision: decision === "approve" ? "approve" : "decline",
    });
    if (decided.kind === "order_placed") {
      const { paidUrl } = await withPaidUrl(slug, token, {
        kind: "order_placed",
        orderId: decided.orderId,
        checkoutId: decided.checkoutId,
      });
      target = paidUrl ?? `${here}?result=paid`;
    } else {
      target = `${here}?result=owed_back`;
    }
  } catch {
    // already decided (or another buyer's link): the page shows the link as it now stands
  }
  redirect(target);
}
