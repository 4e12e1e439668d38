import type { Metadata } from "next";

import { PageShell } from "@/components/layout/page-shell";
import { CryptoGroupView } from "@/components/payment/crypto-group-view";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { getGroupWalletPage } from "@/lib/checkout/crypto/group-wallet-page";
import { isOAuthTestMode } from "@/lib/config/env";

import { payGroupWithWallet, recheckGroupPaymentAction, settleGroupDigest } from "./actions";

// The wallet page of a combined crypto payment (prepare_combined_payment's continue_url): every store, its items
// and total, the whole quote; the buyer signs once and every checkout is completed.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Combined payment — Agent Commerce Service",
  robots: { index: false },
};

type Props = { params: Promise<{ token: string }> };

export default async function CombinedPaymentPage({ params }: Props) {
  const { token } = await params;
  const page = await getGroupWalletPage({ token, viewer: await getBuyerSession() });
  return (
    <PageShell>
      <CryptoGroupView
        page={page}
        token={token}
        locale={await viewerLocale(page?.storeCountry)}
        sandboxSignIn={isOAuthTestMode()}
        actions={{
          pay: payGroupWithWallet,
          settleDigest: settleGroupDigest,
          recheck: recheckGroupPaymentAction,
        }}
      />
    </PageShell>
  );
}
