import "server-only";

import { AppError } from "@/lib/core/errors";

import { rateLimitHeaders } from "./headers";
import { getRateLimiter, type LimitOutcome } from "./limiter";
import { currentRequestSource } from "./request-source";

// Failed authentication is throttled on its own (wrong API keys, bearers, refresh tokens, authorization codes,
// client secrets, agent signatures), per source address and per credential id. The code that decides "wrong
// credential" calls assertAuthAttemptAllowed before it checks anything and recordAuthFailure when the check fails;
// once a budget is spent the answer is 429 rate_limited without checking, so guessing gets no faster than the
// quota whatever the guesses are.
// Per credential id (a platform key's public prefix, a registered OAuth client's id, not a public CIMD client
// whose id anyone can read): a spray from many addresses at one secret. Its quota is larger than the per-source
// one, since spending it also refuses the credential's owner for the rest of the window.

const refusal = (outcome: LimitOutcome): AppError =>
  new AppError("rate_limited", `Too many failed authentications: retry after ${outcome.resetSeconds} s`, {
    details: { retry_after: outcome.resetSeconds },
    headers: { "Retry-After": String(outcome.resetSeconds), ...rateLimitHeaders(outcome) },
  });

/**
 * Refuses before any check when the source address, or the credential id, has spent its failure budget.
 * @throws AppError rate_limited
 */
export const assertAuthAttemptAllowed = async (credentialId?: string | null): Promise<void> => {
  const limiter = getRateLimiter();
  const source = currentRequestSource();
  if (source !== null) {
    const bySource = await limiter.peek("auth-failures", source);
    if (!bySource.allowed) throw refusal(bySource);
  }
  if (credentialId) {
    const byCredential = await limiter.peek("auth-failures-credential", credentialId);
    if (!byCredential.allowed) throw refusal(byCredential);
  }
};

/** Counts one failed authentication against the source address and, when known, the credential id. */
export const recordAuthFailure = async (credentialId?: string | null): Promise<void> => {
  const limiter = getRateLimiter();
  const source = currentRequestSource();
  await Promise.all([
    source !== null ? limiter.consume("auth-failures", source) : null,
    credentialId ? limiter.consume("auth-failures-credential", credentialId) : null,
  ]);
};

/**
 * Runs one credential check under the failure budget: refused up front when spent, and counted when `check`
 * throws one of `failureCodes` (the error is rethrown unchanged).
 */
export const guardAuthCheck = async <T>(
  credentialId: string | null,
  failureCodes: readonly AppError["code"][],
  check: () => Promise<T>,
): Promise<T> => {
  await assertAuthAttemptAllowed(credentialId);
  try {
    return await check();
  } catch (thrown) {
    if (thrown instanceof AppError && failureCodes.includes(thrown.code))
      await recordAuthFailure(credentialId);
    throw thrown;
  }
};
