import Link from "next/link";

import { LinkedAgents } from "@/components/account/linked-agents";
import { PageShell } from "@/components/layout/page-shell";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { listLinkedAgents } from "@/lib/buyers/consents";
import { isOAuthTestMode } from "@/lib/config/env";

import { revokeAgent } from "./actions";

// The consent centre (issue #6 §7) for the signed-in buyer.
export const dynamic = "force-dynamic";

export default async function LinkedAgentsPage() {
  const buyer = await getBuyerSession();
  if (!buyer) {
    return (
      <PageShell
        width="narrow"
        title="Your linked agents"
        description="Sign in to see the agents that act for you."
      >
        <WalletSignIn sandbox={isOAuthTestMode()} />
      </PageShell>
    );
  }
  return (
    <PageShell
      title="Your linked agents"
      description={
        <>
          Signed in as <code className="text-xs break-all">{buyer.suiAddress}</code>. Revoking an agent stops
          its access at once. What each agent may spend is set on{" "}
          <Link href="/account/spend-caps">your spend caps</Link>.
        </>
      }
    >
      <LinkedAgents agents={await listLinkedAgents(buyer.id)} revoke={revokeAgent} />
    </PageShell>
  );
}
