import { Clock } from "lucide-react";

import { PageShell } from "@/components/layout/page-shell";
import { AgentIdentity, ConsentCard, RequestedScopes } from "@/components/oauth/consent-card";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { EmptyState } from "@/components/ui/empty-state";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { isOAuthTestMode } from "@/lib/config/env";
import { getPendingAuthorization } from "@/lib/oauth/decide-authorization";

import { decideConsent } from "./actions";

// The buyer consent page (seed §4 `{consent_url}`; issue #6 §2). Not framable: proxy.ts sends
// `frame-ancestors 'none'` and next.config.mjs X-Frame-Options for /oauth/* (RFC 9700 §4.16).
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<{ request?: string | string[] }> };

export default async function ConsentPage({ searchParams }: Props) {
  const { request: requestParam } = await searchParams;
  const requestId = typeof requestParam === "string" ? requestParam : "";
  const request = requestId ? await getPendingAuthorization(requestId) : null;
  if (!request) {
    return (
      <PageShell width="narrow">
        <h1 className="sr-only">Authorization request</h1>
        <EmptyState icon={<Clock />} title="This authorization request is no longer valid">
          It has expired or was already answered. Go back to the application and start again.
        </EmptyState>
      </PageShell>
    );
  }
  const buyer = await getBuyerSession();
  if (buyer) {
    return (
      <PageShell width="narrow">
        <ConsentCard request={request} address={buyer.suiAddress} decide={decideConsent} />
      </PageShell>
    );
  }
  return (
    <PageShell
      width="narrow"
      title={
        <>
          <span data-testid="client-name">{request.clientName}</span> wants to link to your account
        </>
      }
      description="Here is who is asking and what for. Sign in with your wallet to answer."
    >
      <div className="grid gap-6">
        <WalletSignIn sandbox={isOAuthTestMode()} />
        <div className="bg-card grid gap-6 rounded-xl border p-5 sm:p-6">
          <AgentIdentity request={request} />
          <RequestedScopes request={request} />
        </div>
      </div>
    </PageShell>
  );
}
