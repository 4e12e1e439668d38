import { ConsentCard } from "@/components/oauth/consent-card";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { isOAuthTestMode } from "@/lib/config/env";
import { getPendingAuthorization } from "@/lib/oauth/decide-authorization";

import { decideConsent } from "./actions";

// The buyer consent page (seed §4 `{consent_url}`; issue #6 §2). Not framable: next.config.mjs sends
// `frame-ancestors 'none'` and X-Frame-Options for /oauth/* (RFC 9700 §4.16).
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<{ request?: string | string[] }> };

export default async function ConsentPage({ searchParams }: Props) {
  const { request: requestParam } = await searchParams;
  const requestId = typeof requestParam === "string" ? requestParam : "";
  const request = requestId ? await getPendingAuthorization(requestId) : null;
  if (!request) {
    return (
      <main>
        <h1>This authorization request is no longer valid</h1>
        <p>It has expired or was already answered. Go back to the application and start again.</p>
      </main>
    );
  }
  const buyer = await getBuyerSession();
  return (
    <main>
      {buyer ? (
        <ConsentCard request={request} address={buyer.suiAddress} decide={decideConsent} />
      ) : (
        <>
          <h1>
            <span data-testid="client-name">{request.clientName}</span> wants to link to your account
          </h1>
          <WalletSignIn sandbox={isOAuthTestMode()} />
        </>
      )}
    </main>
  );
}
