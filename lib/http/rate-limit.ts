import "server-only";

import { createHash } from "node:crypto";

import { claimsSignature } from "@/lib/agents/verify-agent-signature";
import { parseCidrList, type Cidr } from "@/lib/config/cidr";
import { getBaseUrl, getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import { hashApiKey, parseApiKeyPrefix } from "@/lib/credentials/api-key-format";
import { buyerAgentPrincipalId } from "@/lib/credentials/principal";
import { verifyAccessTokenJwt } from "@/lib/oauth/tokens";
import { clientAddress } from "@/lib/rate-limit/client-address";
import { rateLimitHeaders } from "@/lib/rate-limit/headers";
import { getRateLimiter } from "@/lib/rate-limit/limiter";
import type { PolicyName } from "@/lib/rate-limit/policies";

import type { RouteKind } from "./prelude";

// The prelude's rate-limit hook (DECISIONS.md B15, seed §5): one budget per caller, by tier. It runs before the
// handler, so it tells the caller from the headers alone, without a database round trip:
//   X-API-Key (a key wins, seed §5 rule 1)  → the key's budget: keyed by the hash of the whole key, so a wrong
//                                             secret under someone's prefix never spends that key's budget
//   Bearer access token                      → its (buyer, agent) budget, or its platform client's; the JWT's
//                                             signature and expiry are checked here (no database), revocation later
//   an RFC 9421 signature (REST and MCP)     → the signed tier's larger budget, of the key, bearer or address
//   nothing, or a credential that is malformed or whose JWT does not verify → the client address's anonymous budget
// A credential that only looks valid here (a well-formed but unknown key, a signature that does not verify) is
// then refused by the handler, and that refusal counts against the source address as a failed authentication
// (lib/rate-limit/auth-failures.ts): made-up credentials buy a handful of requests, never a way around the limit.
// Inbound provider webhooks (signed by the provider, retried by it), the health probes and the metrics scrape are
// not limited.

const UNLIMITED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);
/** Signatures are verified on the shopping surfaces only; elsewhere a signature claim earns nothing. */
const VERIFIES_SIGNATURES: ReadonlySet<RouteKind> = new Set(["ucp", "mcp"]);

let trusted: { source: string | undefined; cidrs: Cidr[] } | undefined;
const trustedProxies = (): Cidr[] => {
  const source = getEnv().TRUSTED_PROXIES;
  const known = trusted;
  if (known && known.source === source) return known.cidrs;
  const cidrs = parseCidrList(source ?? "") ?? [];
  trusted = { source, cidrs };
  return cidrs;
};

/** The client address of a request (see lib/rate-limit/client-address.ts). */
export const requestSourceOf = (request: Request): string => clientAddress(request.headers, trustedProxies());

const digest = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 32);

type Bucket = { policy: PolicyName; key: string };

const bucketOf = async (request: Request, kind: RouteKind, source: string): Promise<Bucket> => {
  const signed = VERIFIES_SIGNATURES.has(kind) && claimsSignature(request.headers);
  const anonymous: Bucket = signed
    ? { policy: "signed", key: `address:${source}` }
    : { policy: "anonymous", key: source };
  const apiKey = request.headers.get("x-api-key")?.trim();
  if (apiKey !== undefined) {
    // a merchant key (acsm_…) has the key budget too, keyed apart from every platform key
    if (!parseApiKeyPrefix(apiKey) && !parseApiKeyPrefix(apiKey, "merchant")) return anonymous;
    return { policy: signed ? "signed" : "key", key: `key:${digest(hashApiKey(apiKey))}` };
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (bearer) {
    const claims = await verifyAccessTokenJwt(bearer, { baseUrl: getBaseUrl() });
    if (!claims) return anonymous;
    if (claims.kind === "client") {
      return { policy: signed ? "signed" : "key", key: `oauth-client:${claims.client_id}` };
    }
    return {
      policy: signed ? "signed" : "bearer",
      key: `bearer:${buyerAgentPrincipalId(claims.sub, claims.client_id)}`,
    };
  }
  return anonymous;
};

/**
 * Takes one request from the caller's budget. Returns the RateLimit headers for the answer.
 * @throws AppError rate_limited (429, Retry-After, `retry_after` in the body) when the budget is spent
 */
export const rateLimitRequest = async (
  request: Request,
  kind: RouteKind,
  source: string,
): Promise<Record<string, string>> => {
  if (kind === "webhook" || UNLIMITED_PATHS.has(new URL(request.url).pathname)) return {};
  const { policy, key } = await bucketOf(request, kind, source);
  const outcome = await getRateLimiter().consume(policy, key);
  const headers = rateLimitHeaders(outcome);
  if (outcome.allowed) return headers;
  const { quota, windowSeconds } = outcome.policy;
  throw new AppError(
    "rate_limited",
    `Rate limit of the ${policy} tier reached (${quota} requests per ${windowSeconds} s): retry after ` +
      `${outcome.resetSeconds} s${policy === "anonymous" ? "; a platform key or a signed request gets a larger budget" : ""}`,
    {
      details: { retry_after: outcome.resetSeconds },
      headers: { "Retry-After": String(outcome.resetSeconds), ...headers },
    },
  );
};
