import { Clock, ShieldCheck } from "lucide-react";
import Link from "next/link";

import { saveAllowance } from "@/app/account/spend-caps/actions";
import { PageShell } from "@/components/layout/page-shell";
import { ConsentLimitStep } from "@/components/oauth/consent-limit-step";
import { EmptyState } from "@/components/ui/empty-state";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { listLinkedAgents } from "@/lib/buyers/consents";
import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";
import { isOAuthTestMode } from "@/lib/config/env";
import { listStoreChoices } from "@/lib/stores/list-stores";

import { continueToAgent } from "../actions";
import { readContinuation } from "../continuation";

// Step 2 of the consent page (DECISIONS B20: consent is not spending): right after "Allow", the buyer may set the
// agent's spending limit and sign it with the wallet, or skip; then the browser goes on to the agent's redirect_uri.
// Not framable and never cached, like the consent page (proxy.ts, next.config.mjs).
export const dynamic = "force-dynamic";

export default async function ConsentLimitPage() {
  const buyer = await getBuyerSession();
  const continuation = buyer ? await readContinuation(buyer.id) : null;
  const agent =
    buyer && continuation
      ? (await listLinkedAgents(buyer.id)).find((a) => a.clientId === continuation.clientId)
      : undefined;
  if (!buyer || !agent) {
    return (
      <PageShell width="narrow">
        <h1 className="sr-only">Spending limit</h1>
        <EmptyState icon={<Clock />} title="There is no agent waiting for a spending limit">
          The link step has ended or was opened in another browser. You can set what your agents may spend on{" "}
          <Link href="/account/spend-caps">your spend caps</Link>.
        </EmptyState>
      </PageShell>
    );
  }
  return (
    <PageShell
      width="narrow"
      title={
        <>
          Set a spending limit for <span data-testid="client-name">{agent.clientName}</span>
        </>
      }
      description={
        <>
          <span className="text-foreground font-medium">Step 2 of 2 · optional.</span> {agent.clientName} is
          now linked to your account, but linking does not let it pay: it can pay for you only within an
          allowance your wallet signs.
        </>
      }
    >
      <div className="grid gap-4">
        <ConsentLimitStep
          agent={{ clientId: agent.clientId, clientName: agent.clientName }}
          address={buyer.suiAddress}
          testWallet={isOAuthTestMode() && buyer.suiAddress === SANDBOX_WALLET_ADDRESS}
          save={saveAllowance}
          proceed={continueToAgent}
          stores={await listStoreChoices()}
        />
        <p className="text-muted-foreground flex gap-2 text-sm" data-testid="skip-note">
          <ShieldCheck aria-hidden className="text-primary mt-0.5 size-4 shrink-0" />
          <span>
            If you skip, {agent.clientName} cannot pay for you until you sign it an allowance on{" "}
            <Link href="/account/spend-caps">your spend caps</Link>.
          </span>
        </p>
      </div>
    </PageShell>
  );
}
