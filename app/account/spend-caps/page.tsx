import Link from "next/link";

import { SpendCaps } from "@/components/account/spend-caps";
import { PageShell } from "@/components/layout/page-shell";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";
import { isOAuthTestMode } from "@/lib/config/env";
import { spendCapsOf } from "@/lib/mandates/spend-caps-page";
import { listStoreChoices } from "@/lib/stores/list-stores";

import { changeAllowance, saveAllowance } from "./actions";

// The buyer's spend caps (DECISIONS B6, B20): per agent, what it bought for the buyer (from the orders), the
// allowances the buyer's wallet signed, what it spent against each limit and what is reserved now; create, edit (a
// new signature), pause and revoke.
export const dynamic = "force-dynamic";

export default async function SpendCapsPage() {
  const buyer = await getBuyerSession();
  if (!buyer) {
    return (
      <PageShell
        width="narrow"
        title="Your spend caps"
        description="Sign in with your wallet to set what your agents may spend."
      >
        <WalletSignIn sandbox={isOAuthTestMode()} />
      </PageShell>
    );
  }
  return (
    <PageShell
      title="Your spend caps"
      description={
        <>
          What each agent may spend for you and what it bought, across every store and both payment methods.
          An agent cannot pay for you until you sign it an allowance; changes take effect at once. Agents you
          link appear on <Link href="/account/agents">your linked agents</Link>.
        </>
      }
    >
      <SpendCaps
        agents={await spendCapsOf(buyer.id, new Date())}
        address={buyer.suiAddress}
        testWallet={isOAuthTestMode() && buyer.suiAddress === SANDBOX_WALLET_ADDRESS}
        actions={{ save: saveAllowance, change: changeAllowance }}
        stores={await listStoreChoices()}
      />
    </PageShell>
  );
}
