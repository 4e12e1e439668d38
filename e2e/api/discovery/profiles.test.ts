import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";

import { seedStore } from "../../factories";
import { callApp, readJson, TEST_BASE_URL } from "../../helpers/app-client";
import { assertTransportError, assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

type Profile = {
  ucp: {
    version: string;
    services: Record<string, { transport: string; endpoint: string }[]>;
    capabilities: Record<string, { version: string; spec: string; schema: string }[]>;
    payment_handlers: Record<string, { id: string; config?: Record<string, unknown> }[]>;
  };
  signing_keys: Record<string, string>[];
};

const BUSINESS_PROFILE = "discovery/profile.json#/$defs/business_profile";

const assertCacheable = (headers: Headers) => {
  const cc = headers.get("cache-control") ?? "";
  const maxAge = Number(/max-age=(\d+)/.exec(cc)?.[1] ?? "0");
  assert.match(cc, /\bpublic\b/);
  assert.ok(maxAge >= 60, `max-age ${maxAge} ≥ 60 (UCP §3)`);
  assert.doesNotMatch(cc, /private|no-store|no-cache/);
};

before(prepareTestDatabase);
after(closeTestDatabase);

describe("GET /.well-known/ucp (platform apex profile)", () => {
  test("is a valid UCP profile advertising the global catalog over REST and MCP, cacheable", async () => {
    const res = await readJson<Profile>(await callApp("GET", "/.well-known/ucp"));
    assert.equal(res.status, 200);
    assertUcpSchema(BUSINESS_PROFILE, res.body);
    assertCacheable(res.headers);
    assert.equal(res.body.ucp.version, "2026-04-08");
    const services = res.body.ucp.services["dev.ucp.shopping"] ?? [];
    assert.deepEqual(
      services.map((s) => [s.transport, s.endpoint]),
      [
        ["rest", TEST_BASE_URL],
        ["mcp", `${TEST_BASE_URL}/mcp`],
      ],
    );
    assert.ok(res.body.ucp.capabilities["dev.ucp.shopping.catalog.lookup"]);
    for (const entries of Object.values(res.body.ucp.capabilities)) {
      for (const e of entries) assert.match(e.spec, /^https:\/\/ucp\.dev\//, "dev.ucp.* points at ucp.dev");
    }
  });

  test("needs no envelope headers and echoes a Request-Id when one is sent", async () => {
    const res = await callApp("GET", "/.well-known/ucp", { headers: { "request-id": "disc-1" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("request-id"), "disc-1");
  });
});

describe("GET /s/:slug/.well-known/ucp (store business profile)", () => {
  test("a store with both rails: valid profile, endpoints, handlers keyed sh.svc.* with inner ids, signing keys", async () => {
    const store = await seedStore({
      cryptoEnabled: true,
      acceptedCoins: ["USDC", "SUI"],
      suiRecipient: `0x${"ab".repeat(32)}`,
    });
    // our symbols resolved through our coin table, in the store's order; a test-mode store settles on the sandbox
    const coins = [
      {
        symbol: "USDC",
        coin_type: "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC",
        decimals: 6,
      },
      { symbol: "SUI", coin_type: `0x${"0".repeat(63)}2::sui::SUI`, decimals: 9 },
    ];
    const res = await readJson<Profile>(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
    assert.equal(res.status, 200);
    assertUcpSchema(BUSINESS_PROFILE, res.body);
    assertCacheable(res.headers);

    const endpoint = `${TEST_BASE_URL}/s/${store.slug}`;
    const services = res.body.ucp.services["dev.ucp.shopping"] ?? [];
    assert.deepEqual(
      services.map((s) => [s.transport, s.endpoint]),
      [
        ["rest", endpoint],
        ["mcp", `${endpoint}/mcp`],
      ],
    );
    assert.deepEqual(Object.keys(res.body.ucp.payment_handlers).sort(), ["sh.svc.card", "sh.svc.crypto"]);
    assert.equal(res.body.ucp.payment_handlers["sh.svc.card"]?.[0]?.id, "svc.card");
    const crypto = res.body.ucp.payment_handlers["sh.svc.crypto"]?.[0];
    assert.equal(crypto?.id, "svc.crypto");
    assert.deepEqual(crypto?.config?.accepted_coins, coins);
    assert.equal(crypto?.config?.network, "sui:sandbox");
    assert.equal(crypto?.config?.recipient, `0x${"ab".repeat(32)}`);

    const db = await getDb();
    const [key] = await db.storeSigningKey.findMany({ where: { storeId: store.id } });
    assert.equal(res.body.signing_keys.length, 1);
    assert.equal(res.body.signing_keys[0]?.kid, key?.kid);
    assert.equal(res.body.signing_keys[0]?.crv, "P-256");
    assert.equal(res.body.signing_keys[0]?.d, undefined, "never publishes the private key");
  });

  test("a card-only store advertises only sh.svc.card", async () => {
    const store = await seedStore({ cryptoEnabled: false });
    const res = await readJson<Profile>(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
    assertUcpSchema(BUSINESS_PROFILE, res.body);
    assert.deepEqual(Object.keys(res.body.ucp.payment_handlers), ["sh.svc.card"]);
  });

  test("the profile is stable: two reads give the same bytes", async () => {
    const store = await seedStore();
    const a = await readJson(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
    const b = await readJson(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
    assert.equal(a.text, b.text);
  });

  test("a retired key stays published for 7 days, then disappears", async () => {
    const store = await seedStore();
    const db = await getDb();
    const [key] = await db.storeSigningKey.findMany({ where: { storeId: store.id } });
    assert.ok(key);
    await db.storeSigningKey.update({
      where: { id: key.id },
      data: { retiredAt: new Date(Date.now() - 86_400_000) },
    });
    let res = await readJson<Profile>(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
    assert.equal(res.body.signing_keys.length, 1);
    await db.storeSigningKey.update({
      where: { id: key.id },
      data: { retiredAt: new Date(Date.now() - 8 * 86_400_000) },
    });
    res = await readJson<Profile>(await callApp("GET", `/s/${store.slug}/.well-known/ucp`));
    assert.equal(res.body.signing_keys.length, 0);
  });

  test("an unknown store is 404 store_not_found in the UCP error envelope", async () => {
    const res = await readJson(await callApp("GET", "/s/no-such-store/.well-known/ucp"));
    assert.equal(res.status, 404);
    assertTransportError(res.body);
    assert.equal((res.body as { messages: { code: string }[] }).messages[0]?.code, "store_not_found");
  });
});
