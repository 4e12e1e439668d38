import { LinkedAgents } from "@/components/account/linked-agents";
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
      <main>
        <h1>Your linked agents</h1>
        <WalletSignIn sandbox={isOAuthTestMode()} />
      </main>
    );
  }
  return (
    <main>
      <h1>Your linked agents</h1>
      <p>
        Signed in as <code>{buyer.suiAddress}</code>. Revoking an agent stops its access at once.
      </p>
      <LinkedAgents agents={await listLinkedAgents(buyer.id)} revoke={revokeAgent} />
    </main>
  );
}
