import "server-only";

import { Redis } from "ioredis";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";

import { getEnv } from "@/lib/config/env";
import { onShutdown } from "@/lib/config/shutdown";
import { errorText, logger } from "@/lib/core/log";

import { POLICY_NAMES, ratePolicies, type PolicyName, type RatePolicy } from "./policies";

// The counters behind every policy (rate-limiter-flexible): in this process's memory by default, in Redis when
// REDIS_URL is set so several instances share one budget per caller (DECISIONS.md B15).
// Redis outage (docs/decisions.md "Rate limits"): the anonymous tier and the failed-authentication counters fall
// back to this process's memory with the same quotas (still limited, per instance: a flood or a password spray
// must not get through because a cache is down); the identified tiers (platform key, bearer, signed) fail open,
// since their callers are accountable and a Redis outage must not stop paying customers.

const FAIL_CLOSED: ReadonlySet<PolicyName> = new Set([
  "anonymous",
  "auth-failures",
  "auth-failures-credential",
]);

export type LimitOutcome = {
  policy: RatePolicy;
  allowed: boolean;
  /** Budget left in the current window (after this request). */
  remaining: number;
  /** Seconds until the window resets (at least 1 when refused). */
  resetSeconds: number;
  /** The store failed and the policy failed open: nothing was counted. */
  unmetered?: boolean;
};

export type RateLimiter = {
  readonly store: "memory" | "redis";
  /** Takes one unit of `key`'s budget under `policy`. */
  consume: (policy: PolicyName, key: string) => Promise<LimitOutcome>;
  /** Whether `key` has budget left under `policy`, without taking any. */
  peek: (policy: PolicyName, key: string) => Promise<LimitOutcome>;
  /** Resolves when the store can take requests (Redis connected); at once in memory. */
  ready: () => Promise<void>;
  close: () => Promise<void>;
};

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

let warnedAt = 0;
/** One line a minute at most while the store is failing: enough for an operator, never a log flood. */
const warnStoreFailure = (error: unknown): void => {
  if (Date.now() - warnedAt < 60_000) return;
  warnedAt = Date.now();
  logger().warn(
    { error: errorText(error) },
    "rate-limit store unavailable: anonymous and auth-failure limits per instance, identified tiers open",
  );
};

export const createRateLimiter = ({
  policies = ratePolicies(),
  redisUrl,
}: { policies?: Record<PolicyName, RatePolicy>; redisUrl?: string } = {}): RateLimiter => {
  const redis = redisUrl
    ? new Redis(redisUrl, {
        // refuse at once while disconnected instead of queueing (a request must not wait for Redis to return)
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
        retryStrategy: (times) => Math.min(times * 200, 2_000),
      })
    : null;
  redis?.on("error", warnStoreFailure);

  const limiters = Object.fromEntries(
    POLICY_NAMES.map((name): [PolicyName, RateLimiterAbstract] => {
      const { quota, windowSeconds } = policies[name];
      const memory = () => new RateLimiterMemory({ points: quota, duration: windowSeconds, keyPrefix: name });
      if (!redis) return [name, memory()];
      return [
        name,
        new RateLimiterRedis({
          storeClient: redis,
          points: quota,
          duration: windowSeconds,
          keyPrefix: `acs-rl:${name}`,
          rejectIfRedisNotReady: true,
          ...(FAIL_CLOSED.has(name) ? { insuranceLimiter: memory() } : {}),
        }),
      ];
    }),
  ) as Record<PolicyName, RateLimiterAbstract>;

  const outcome = (name: PolicyName, res: RateLimiterRes, allowed: boolean): LimitOutcome => ({
    policy: policies[name],
    allowed,
    remaining: res.remainingPoints,
    resetSeconds: allowed ? Math.max(0, Math.ceil(res.msBeforeNext / 1000)) : seconds(res.msBeforeNext),
  });

  const unmetered = (name: PolicyName, error: unknown): LimitOutcome => {
    warnStoreFailure(error);
    const policy = policies[name];
    return {
      policy,
      allowed: true,
      remaining: policy.quota,
      resetSeconds: policy.windowSeconds,
      unmetered: true,
    };
  };

  return {
    store: redis ? "redis" : "memory",
    consume: async (name, key) => {
      try {
        return outcome(name, await limiters[name].consume(key, 1), true);
      } catch (thrown) {
        if (thrown instanceof RateLimiterRes) return outcome(name, thrown, false);
        return unmetered(name, thrown);
      }
    },
    peek: async (name, key) => {
      const policy = policies[name];
      try {
        const res = await limiters[name].get(key);
        if (!res)
          return { policy, allowed: true, remaining: policy.quota, resetSeconds: policy.windowSeconds };
        return outcome(name, res, res.consumedPoints < policy.quota);
      } catch (thrown) {
        return unmetered(name, thrown);
      }
    },
    ready: async () => {
      if (!redis || redis.status === "ready") return;
      await new Promise<void>((resolve, reject) => {
        redis.once("ready", resolve);
        redis.once("end", () => reject(new Error("Redis connection ended")));
      });
    },
    close: async () => {
      if (!redis) return;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
};

// One limiter per process, on globalThis so every route bundle and hot reload share the same counters.
const globalForLimiter = globalThis as unknown as { __acsRateLimiter?: RateLimiter };

/** The process's limiter, built from the validated environment on first use. */
export const getRateLimiter = (): RateLimiter => {
  if (!globalForLimiter.__acsRateLimiter) {
    const limiter = createRateLimiter({ redisUrl: getEnv().REDIS_URL });
    globalForLimiter.__acsRateLimiter = limiter;
    if (limiter.store === "redis") onShutdown("rate-limit store (Redis)", () => limiter.close());
  }
  return globalForLimiter.__acsRateLimiter;
};

/** Closes the process's limiter (tests; the server closes it through its shutdown hooks). */
export const closeRateLimiter = async (): Promise<void> => {
  const limiter = globalForLimiter.__acsRateLimiter;
  globalForLimiter.__acsRateLimiter = undefined;
  await limiter?.close();
};
