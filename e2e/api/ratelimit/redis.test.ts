import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { parseEnv } from "@/lib/config/env";
import { CLIENT_ADDRESS_HEADER, clientAddressStamp } from "@/lib/rate-limit/client-address";
import {
  closeRateLimiter,
  createRateLimiter,
  getRateLimiter,
  type RateLimiter,
} from "@/lib/rate-limit/limiter";
import { ratePolicies } from "@/lib/rate-limit/policies";

import { seedPlatformKey } from "../../factories";
import { rest } from "../../helpers/app-client";
import { redisServer, type RedisServer } from "../../helpers/redis-server";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Several instances share one budget through Redis (REDIS_URL), on a real redis-server: the app's limiter and a
// second limiter (another instance) spend and see the same counters. Redis outage (docs/decisions.md "Rate
// limits"): the anonymous tier and the failed-authentication counters fall back to per-instance memory with the
// same quotas (still limited); the identified tiers fail open (served, RateLimit-Policy without a RateLimit count).

const ANONYMOUS = 4;
const KEY = 3;
let redis: RedisServer;
const opened: RateLimiter[] = [];

before(async () => {
  redis = await redisServer();
  process.env.REDIS_URL = redis.url;
  process.env.RATE_LIMIT_ANONYMOUS = String(ANONYMOUS);
  process.env.RATE_LIMIT_KEY = String(KEY);
  await prepareTestDatabase();
  // the app's limiter connects on first use; until then a request is counted in memory (anonymous) or not at all
  await getRateLimiter().ready();
});
after(async () => {
  await Promise.all(opened.map((limiter) => limiter.close()));
  await closeRateLimiter();
  await closeTestDatabase();
  await redis.kill();
});

const policies = () =>
  ratePolicies(parseEnv({ RATE_LIMIT_ANONYMOUS: String(ANONYMOUS), RATE_LIMIT_KEY: String(KEY) }));
const instance = async (redisUrl?: string): Promise<RateLimiter> => {
  const limiter = createRateLimiter({ policies: policies(), redisUrl });
  opened.push(limiter);
  await limiter.ready();
  return limiter;
};
const from = (address: string, extra: Record<string, string> = {}) => ({
  [CLIENT_ADDRESS_HEADER]: clientAddressStamp(address),
  ...extra,
});
const search = (headers: Record<string, string>) =>
  rest("POST", "/catalog/search", { headers, body: { query: "mug" } });

test("two instances on one Redis share one budget; two in-memory instances do not", async () => {
  const [a, b] = [await instance(redis.url), await instance(redis.url)];
  assert.equal(a.store, "redis");
  const key = "192.0.2.1";
  assert.equal((await a.consume("anonymous", key)).remaining, ANONYMOUS - 1);
  assert.equal((await b.consume("anonymous", key)).remaining, ANONYMOUS - 2);
  assert.equal((await a.consume("anonymous", key)).remaining, ANONYMOUS - 3);
  assert.equal((await b.consume("anonymous", key)).allowed, true);
  const refused = await a.consume("anonymous", key);
  assert.equal(refused.allowed, false);
  assert.ok(refused.resetSeconds >= 1 && refused.resetSeconds <= 60);
  assert.equal((await b.consume("anonymous", key)).allowed, false);

  const [m, n] = [await instance(), await instance()];
  assert.equal(m.store, "memory");
  for (let i = 0; i < ANONYMOUS; i++) assert.equal((await m.consume("anonymous", key)).allowed, true);
  assert.equal((await n.consume("anonymous", key)).remaining, ANONYMOUS - 1);
});

test("the app's requests spend the same Redis budget another instance sees", async () => {
  const other = await instance(redis.url);
  const address = "192.0.2.2";
  const first = await search(from(address));
  assert.equal(first.status, 200, first.text);
  assert.match(first.headers.get("ratelimit") ?? "", new RegExp(`^"anonymous";r=${ANONYMOUS - 1};`));
  // the other instance takes two of the same address's requests…
  await other.consume("anonymous", address);
  await other.consume("anonymous", address);
  // …and this one sees them: one left, then refused
  const last = await search(from(address));
  assert.equal(last.status, 200, last.text);
  assert.match(last.headers.get("ratelimit") ?? "", /^"anonymous";r=0;/);
  assert.equal((await search(from(address))).status, 429);
});

test("Redis outage: anonymous still limited per instance, keyed callers served unmetered, metering back after", async () => {
  const { key } = await seedPlatformKey();
  const address = "192.0.2.3";
  // warm: the app's limiter is connected
  assert.equal((await search(from(address, { "x-api-key": key }))).status, 200);
  await redis.kill();

  const anonymous: number[] = [];
  for (let i = 0; i < ANONYMOUS + 1; i++) anonymous.push((await search(from(address))).status);
  assert.deepEqual(anonymous, [200, 200, 200, 200, 429], "fail closed to per-instance memory");

  for (let i = 0; i < KEY + 2; i++) {
    const keyed = await search(from(address, { "x-api-key": key }));
    assert.equal(keyed.status, 200, `keyed call ${i + 1} during the outage: ${keyed.text}`);
    assert.equal(keyed.headers.get("ratelimit-policy"), `"key";q=${KEY};w=60`);
    assert.equal(keyed.headers.get("ratelimit"), null, "nothing was counted");
  }

  // Redis back on the same port: the client reconnects and keyed calls are counted again (a fresh server is empty)
  await redis.start();
  const deadline = Date.now() + 10_000;
  let metered: string | null = null;
  while (Date.now() < deadline) {
    metered = (await search(from(address, { "x-api-key": key }))).headers.get("ratelimit");
    if (metered) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.match(metered ?? "", /^"key";r=\d+;t=\d+$/);
});
