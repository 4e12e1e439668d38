import "server-only";

import { verifyAgentSignature } from "@/lib/agents/verify-agent-signature";
import { getBaseUrl } from "@/lib/config/env";
import { agentPrincipal, tierOf, type Principal, type TrustTier } from "@/lib/credentials/principal";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import type { Store } from "@/lib/generated/prisma/client";

// Who is calling and at which trust tier, for every shopping surface (REST and MCP): the credential headers
// (a key wins over a bearer, seed §5 rule 1) and, when the request is signed, its RFC 9421 signature by a key
// in the agent profile (the signed tier). A signed request without a key or bearer is the agent itself.

/** The URL the client addressed: our public base URL with the request's path and query (signatures cover it). */
const publicUrl = (request: Request): string => {
  const url = new URL(request.url);
  return `${getBaseUrl()}${url.pathname}${url.search}`;
};

export type Caller = { principal: Principal; tier: TrustTier };

/**
 * @throws AppError invalid_api_key, invalid_token, and the signature errors of verifyAgentSignature
 */
export const resolveCaller = async (
  request: Request,
  {
    body,
    agentProfile,
    store,
    now,
  }: { body: Uint8Array; agentProfile: string; store: Store | null; now: Date },
): Promise<Caller> => {
  const principal = await resolvePrincipal({
    apiKey: request.headers.get("x-api-key"),
    authorization: request.headers.get("authorization"),
  });
  const signed = await verifyAgentSignature({
    message: { method: request.method, url: publicUrl(request), headers: request.headers, body },
    profileUrl: agentProfile,
    store,
    now,
  });
  const caller = signed && principal.kind === "anonymous" ? agentPrincipal(agentProfile) : principal;
  return { principal: caller, tier: tierOf(caller, signed) };
};
