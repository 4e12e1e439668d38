import { getEnv, type Env } from "@/lib/config/env";

// The rate-limit policies (DECISIONS.md B15, seed §5 "a platform key gets higher limits than the anonymous tier"):
// one budget per caller per window, larger as the caller is better identified. The quotas come from the validated
// environment; under NODE_ENV=test every default is very high, so the test suites (thousands of requests from
// 127.0.0.1) are never throttled unless a test asks for a small quota. The limiter itself is never turned off.

export type PolicyName =
  "anonymous" | "key" | "bearer" | "signed" | "auth-failures" | "auth-failures-credential";

export type RatePolicy = {
  name: PolicyName;
  /** Requests (or, for the auth-failure policies, failed authentications) allowed per window. */
  quota: number;
  windowSeconds: number;
  /** What one budget belongs to, as published in the profiles. */
  per: string;
};

const DEFAULTS: Record<PolicyName, number> = {
  anonymous: 120,
  key: 1200,
  bearer: 600,
  signed: 3000,
  "auth-failures": 20,
  "auth-failures-credential": 100,
};
const TEST_DEFAULT = 1_000_000;

const PER: Record<PolicyName, string> = {
  anonymous: "client_ip",
  key: "platform_key",
  bearer: "buyer_agent",
  signed: "signer",
  "auth-failures": "client_ip",
  "auth-failures-credential": "credential_id",
};

const CONFIGURED: Record<PolicyName, keyof Env> = {
  anonymous: "RATE_LIMIT_ANONYMOUS",
  key: "RATE_LIMIT_KEY",
  bearer: "RATE_LIMIT_BEARER",
  signed: "RATE_LIMIT_SIGNED",
  "auth-failures": "RATE_LIMIT_AUTH_FAILURES",
  "auth-failures-credential": "RATE_LIMIT_CREDENTIAL_FAILURES",
};

export const POLICY_NAMES = Object.keys(DEFAULTS) as PolicyName[];

/** Every policy of this deployment (`env` defaults to the validated process environment). */
export const ratePolicies = (env: Env = getEnv()): Record<PolicyName, RatePolicy> =>
  Object.fromEntries(
    POLICY_NAMES.map((name) => {
      const configured = env[CONFIGURED[name]];
      const quota =
        typeof configured === "number" ? configured : env.NODE_ENV === "test" ? TEST_DEFAULT : DEFAULTS[name];
      return [name, { name, quota, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS, per: PER[name] }];
    }),
  ) as Record<PolicyName, RatePolicy>;

/**
 * The quotas as published in the apex and store profiles (`svc_rate_limits`, docs/decisions.md "Rate limits"), so
 * an agent can pace itself before it meets a 429.
 */
export const publishedRateLimits = (env: Env = getEnv()) => {
  const policies = ratePolicies(env);
  return {
    window_seconds: env.RATE_LIMIT_WINDOW_SECONDS,
    headers: "RateLimit, RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers)",
    policies: POLICY_NAMES.map((name) => ({
      name,
      quota: policies[name].quota,
      window_seconds: policies[name].windowSeconds,
      per: policies[name].per,
      counts: name.startsWith("auth-failures") ? "failed_authentications" : "requests",
    })),
  };
};
