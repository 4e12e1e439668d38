import Link from "next/link";

import { LinkedAgents, type AgentActivity } from "@/components/account/linked-agents";
import { PageShell } from "@/components/layout/page-shell";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { agentPurchasesOf } from "@/lib/buyers/agent-purchases";
import { listLinkedAgents } from "@/lib/buyers/consents";
import { isOAuthTestMode } from "@/lib/config/env";

import { revokeAgent } from "./actions";

// The consent centre for the signed-in buyer: each linked agent with what it bought for them lately,
// from the same query as the spend-caps page (lib/buyers/agent-purchases.ts).
export const dynamic = "force-dynamic";

/** How many of an agent's purchases the list shows; the rest are on the buyer's orders page. */
const RECENT_PURCHASES = 3;

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
  const [agents, purchases, locale] = await Promise.all([
    listLinkedAgents(buyer.id),
    agentPurchasesOf(buyer.id, new Date()),
    viewerLocale(),
  ]);
  const activity: Record<string, AgentActivity> = Object.fromEntries(
    purchases.agents.map((a) => [
      a.clientId,
      {
        recent: a.purchases.slice(0, RECENT_PURCHASES),
        count: a.purchases.length,
        spent: a.spent,
        canPay: a.allowances.some((allowance) => allowance.status === "active"),
      },
    ]),
  );
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
      <LinkedAgents agents={agents} activity={activity} locale={locale} revoke={revokeAgent} />
    </PageShell>
  );
}
