import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { CLIENT_ADDRESS_HEADER, clientAddressStamp } from "@/lib/rate-limit/client-address";

import { seedPlatformKey } from "../../factories";
import { callApp, mcpCall, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Rate limits by tier through the one prelude (anonymous < platform key), on REST, MCP and discovery: an anonymous
// flood is refused with 429 rate_limited (Retry-After, retry_after in the body, RateLimit headers) while a
// platform key from the same address and another address are unaffected; each key has its own budget. The
// addresses are the one our HTTP server stamps from the socket (CLIENT_ADDRESS_HEADER).

const ANONYMOUS = 5;
const KEY = 8;

before(async () => {
  // getEnv() caches its first read, which prepareTestDatabase makes: small quotas first
  process.env.RATE_LIMIT_ANONYMOUS = String(ANONYMOUS);
  process.env.RATE_LIMIT_KEY = String(KEY);
  process.env.RATE_LIMIT_WINDOW_SECONDS = "60";
  await prepareTestDatabase();
});
after(closeTestDatabase);

const from = (address: string, extra: Record<string, string> = {}) => ({
  [CLIENT_ADDRESS_HEADER]: clientAddressStamp(address),
  ...extra,
});

const search = (headers: Record<string, string>) =>
  rest<Record<string, unknown>>("POST", "/catalog/search", { headers, body: { query: "mug" } });

test("anonymous flood: 429 rate_limited after the quota, the keyed tier and other addresses unaffected", async () => {
  const address = "203.0.113.10";
  for (let i = 1; i <= ANONYMOUS; i++) {
    const ok = await search(from(address));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers.get("ratelimit-policy"), `"anonymous";q=${ANONYMOUS};w=60`);
    const remaining = /^"anonymous";r=(\d+);t=(\d+)$/.exec(ok.headers.get("ratelimit") ?? "");
    assert.ok(remaining, ok.headers.get("ratelimit") ?? "no RateLimit header");
    assert.equal(Number(remaining[1]), ANONYMOUS - i);
    assert.ok(Number(remaining[2]) >= 1 && Number(remaining[2]) <= 60);
  }
  const refused = await search(from(address, { "request-id": "flood-1" }));
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.headers.get("request-id"), "flood-1");
  const retryAfter = Number(refused.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(refused.headers.get("ratelimit"), `"anonymous";r=0;t=${retryAfter}`);
  const body = refused.body as {
    code: string;
    retry_after: number;
    ucp: { status: string };
    messages: { code: string }[];
  };
  assert.equal(body.code, "rate_limited");
  assert.equal(body.retry_after, retryAfter);
  assert.equal(body.ucp.status, "error");
  assert.equal(body.messages[0]?.code, "rate_limited");

  // the same address with a platform key: its own, larger budget
  const { key } = await seedPlatformKey();
  const keyed = await search(from(address, { "x-api-key": key }));
  assert.equal(keyed.status, 200, keyed.text);
  assert.equal(keyed.headers.get("ratelimit-policy"), `"key";q=${KEY};w=60`);
  // another address: its own anonymous budget
  const other = await search(from("203.0.113.11"));
  assert.equal(other.status, 200, other.text);
  // discovery documents are limited too, and refused in the envelope
  const profile = await callApp("GET", "/.well-known/ucp", { headers: from(address) });
  assert.equal(profile.status, 429);
  assert.equal(((await profile.json()) as { code: string }).code, "rate_limited");
});

test("per key: one key's spent budget does not touch another key's", async () => {
  const address = "198.51.100.20";
  const first = await seedPlatformKey();
  const second = await seedPlatformKey();
  for (let i = 0; i < KEY; i++) {
    const ok = await search(from(address, { "x-api-key": first.key }));
    assert.equal(ok.status, 200, ok.text);
  }
  const refused = await search(from(address, { "x-api-key": first.key }));
  assert.equal(refused.status, 429, refused.text);
  assert.match(refused.headers.get("ratelimit") ?? "", /^"key";r=0;t=\d+$/);
  const other = await search(from(address, { "x-api-key": second.key }));
  assert.equal(other.status, 200, other.text);
  assert.equal(other.headers.get("ratelimit")?.startsWith(`"key";r=${KEY - 1};`), true);
});

test("MCP: the 429 is a JSON-RPC error carrying rate_limited and retry_after, with Retry-After", async () => {
  const address = "192.0.2.30";
  for (let i = 0; i < ANONYMOUS; i++) {
    const ok = await mcpCall(
      "/mcp",
      "search_catalog",
      { catalog: { query: "mug" } },
      { headers: from(address) },
    );
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.headers.get("ratelimit") ?? "", /^"anonymous";r=\d+;t=\d+$/);
  }
  const refused = await mcpCall(
    "/mcp",
    "search_catalog",
    { catalog: { query: "mug" } },
    { headers: from(address) },
  );
  assert.equal(refused.status, 429, refused.text);
  const body = refused.body as {
    jsonrpc: string;
    error: { code: number; data: { code: string; retry_after: number } };
  };
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.error.data.code, "rate_limited");
  assert.equal(body.error.data.retry_after, Number(refused.headers.get("retry-after")));
  assert.ok(body.error.data.retry_after >= 1);
});

test("/healthz and /readyz are never limited", async () => {
  const address = "192.0.2.40";
  for (let i = 0; i < ANONYMOUS + 2; i++) {
    const health = await callApp("GET", "/healthz", { headers: from(address) });
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("ratelimit"), null);
  }
  // and they spent nothing of the address's budget
  const ok = await search(from(address));
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.headers.get("ratelimit")?.startsWith(`"anonymous";r=${ANONYMOUS - 1};`), true);
});

test("the quotas are published in the apex and store profiles (svc_rate_limits)", async () => {
  const response = await callApp("GET", "/.well-known/ucp", { headers: from("192.0.2.50") });
  assert.equal(response.status, 200);
  const profile = (await response.json()) as {
    svc_rate_limits: { window_seconds: number; policies: { name: string; quota: number; per: string }[] };
  };
  assert.equal(profile.svc_rate_limits.window_seconds, 60);
  const byName = Object.fromEntries(profile.svc_rate_limits.policies.map((p) => [p.name, p]));
  assert.equal(byName.anonymous?.quota, ANONYMOUS);
  assert.equal(byName.anonymous?.per, "client_ip");
  assert.equal(byName.key?.quota, KEY);
  assert.equal(byName.key?.per, "platform_key");
});

test("OAuth endpoints: the address's anonymous budget, then 429 in the RFC 6749 body", async () => {
  const address = "192.0.2.70";
  const token = () =>
    callApp("POST", "/ucp/oauth2/token", {
      headers: from(address, { "content-type": "application/x-www-form-urlencoded" }),
      rawBody: "grant_type=password&username=a&password=b",
    });
  for (let i = 0; i < ANONYMOUS; i++) {
    const refusedGrant = await token();
    assert.equal(refusedGrant.status, 400);
    assert.equal(((await refusedGrant.json()) as { error: string }).error, "unsupported_grant_type");
    assert.match(refusedGrant.headers.get("ratelimit") ?? "", /^"anonymous";r=\d+;t=\d+$/);
  }
  const limited = await token();
  assert.equal(limited.status, 429);
  const body = (await limited.json()) as { error: string; retry_after: number };
  assert.equal(body.error, "temporarily_unavailable");
  assert.equal(body.retry_after, Number(limited.headers.get("retry-after")));
  assert.equal(limited.headers.get("cache-control"), "no-store");
});

test("page API routes (the hosted payment form) are limited too, their redirects keep the headers", async () => {
  const address = "192.0.2.80";
  const submit = () =>
    callApp("POST", "/s/some-store/pay/some-token/submit", {
      headers: from(address, { "content-type": "application/x-www-form-urlencoded" }),
      rawBody: "action=nothing",
    });
  for (let i = 0; i < ANONYMOUS; i++) {
    const redirect = await submit();
    assert.equal(redirect.status, 303);
    assert.match(redirect.headers.get("location") ?? "", /result=invalid/);
    assert.match(redirect.headers.get("ratelimit") ?? "", /^"anonymous";r=\d+;t=\d+$/);
  }
  const limited = await submit();
  assert.equal(limited.status, 429);
  assert.equal(((await limited.json()) as { code: string }).code, "rate_limited");
});

test("the mounted bridge and /metrics: the bridge spends the caller's budget, the metrics scrape never does", async () => {
  const address = "192.0.2.60";
  const bridge = () =>
    callApp("POST", "/bridge/mcp", {
      headers: from(address, {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      }),
      body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
  for (let i = 1; i <= ANONYMOUS; i++) {
    const listed = await bridge();
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get("ratelimit")?.startsWith(`"anonymous";r=${ANONYMOUS - i};`), true);
  }
  const refused = await bridge();
  assert.equal(refused.status, 429);
  assert.equal(
    ((await refused.json()) as { error: { data: { code: string } } }).error.data.code,
    "rate_limited",
  );
  const metrics = await callApp("GET", "/metrics", { headers: from(address) });
  assert.notEqual(metrics.status, 429);
  assert.equal(metrics.headers.get("ratelimit"), null);
});
