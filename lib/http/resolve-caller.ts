import "server-only";

import { claimsSignature, verifyAgentSignature } from "@/lib/agents/verify-agent-signature";
import { getBaseUrl } from "@/lib/config/env";
import type { AppError } from "@/lib/core/errors";
import type { AnyOperation } from "@/lib/core/operation";
import {
  agentPrincipal,
  assertCanCall,
  tierOf,
  type Principal,
  type TrustTier,
} from "@/lib/credentials/principal";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import type { Store } from "@/lib/generated/prisma/client";
import { noteCaller } from "@/lib/ops/access-log";
import { timeStage } from "@/lib/ops/server-timing";
import { guardAuthCheck } from "@/lib/rate-limit/auth-failures";

// Who is calling and at which trust tier, for every shopping surface (REST and MCP): the credential headers
// (a key wins over a bearer, seed §5 rule 1) and, when the request is signed, its RFC 9421 signature by a key
// in the agent profile (the signed tier). A signed request without a key or bearer is the agent itself.

/** The URL the client addressed: our public base URL with the request's path and query (signatures cover it). */
const publicUrl = (request: Request): string => {
  const url = new URL(request.url);
  return `${getBaseUrl()}${url.pathname}${url.search}`;
};

export type Caller = { principal: Principal; tier: TrustTier };

/** The refusals of a signature that does not authenticate (a malformed one is a client error, not a guess). */
const SIGNATURE_FAILURES: readonly AppError["code"][] = [
  "signature_invalid",
  "key_not_found",
  "signature_replayed",
  "signature_missing",
];

/** The credentials of a request, checked without any outbound fetch. */
export type IdentifiedCaller = {
  principal: Principal;
  /**
   * Whether the agent profile may be fetched for this request: only for an identified caller (a valid key or
   * bearer) or a request that claims a signature (verifying it needs the profile's keys). An anonymous call
   * is served without fetching a URL it named, so it cannot make the service fetch for it.
   */
  fetchesProfile: boolean;
};

/**
 * Step 1, no network: the key or bearer (a key wins, seed §5 rule 1). An anonymous, unsigned call to an
 * operation above the anonymous tier, or to a buyer-bound one, is refused here, before anything is fetched.
 * @throws AppError invalid_api_key, invalid_token, identity_required, insufficient_trust
 */
export const identifyCaller = async (
  request: Request,
  op?: Pick<AnyOperation, "name" | "tier" | "buyerScope" | "buyerOnly">,
): Promise<IdentifiedCaller> => {
  const principal = await timeStage("auth", () =>
    resolvePrincipal({
      apiKey: request.headers.get("x-api-key"),
      authorization: request.headers.get("authorization"),
    }),
  );
  const signed = claimsSignature(request.headers);
  if (principal.kind === "anonymous" && !signed && op) assertCanCall(principal, "anonymous", op);
  return { principal, fetchesProfile: principal.kind !== "anonymous" || signed };
};

/**
 * Step 2: when the request is signed, its RFC 9421 signature by a key in the agent profile (the signed tier).
 * @throws AppError the signature errors of verifyAgentSignature
 */
export const verifyCallerSignature = async (
  request: Request,
  { principal }: IdentifiedCaller,
  {
    body,
    agentProfile,
    store,
    now,
  }: { body: Uint8Array; agentProfile: string; store: Store | null; now: Date },
): Promise<Caller> => {
  // a signature that does not verify is a failed authentication, counted against the source address
  // (lib/rate-limit/auth-failures.ts); an unsigned request is not checked, so not counted either
  const verify = () =>
    verifyAgentSignature({
      message: { method: request.method, url: publicUrl(request), headers: request.headers, body },
      profileUrl: agentProfile,
      store,
      now,
    });
  const signed = await timeStage("auth", () =>
    claimsSignature(request.headers) ? guardAuthCheck(null, SIGNATURE_FAILURES, verify) : verify(),
  );
  const caller = signed && principal.kind === "anonymous" ? agentPrincipal(agentProfile) : principal;
  const tier = tierOf(caller, signed);
  noteCaller(request, caller, tier); // for the access line
  return { principal: caller, tier };
};
