import type { LimitOutcome } from "./limiter";

// RateLimit and RateLimit-Policy (IETF draft-ietf-httpapi-ratelimit-headers, structured-field form):
//   RateLimit-Policy: "anonymous";q=120;w=60      the quota q per window of w seconds
//   RateLimit: "anonymous";r=119;t=60             r left in this window, which resets in t seconds
// A policy whose store is down and that fails open (limiter.ts) sends the policy only: nothing was counted.

export const rateLimitHeaders = (outcome: LimitOutcome): Record<string, string> => {
  const { policy } = outcome;
  const headers: Record<string, string> = {
    "RateLimit-Policy": `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`,
  };
  if (!outcome.unmetered) {
    headers.RateLimit = `"${policy.name}";r=${outcome.remaining};t=${outcome.resetSeconds}`;
  }
  return headers;
};
