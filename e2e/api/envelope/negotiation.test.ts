import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { profileServer, type ProfileName } from "../../helpers/agent-profile-server";
import { mcpCall, rest, type JsonResponse } from "../../helpers/app-client";
import { assertTransportError } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// UCP version negotiation (CONTRACT.md §4): the service fetches the agent profile named in UCP-Agent (REST) or
// meta["ucp-agent"].profile (MCP) through the outbound guard and checks its ucp.version.

type Rpc = { error?: { code: number; data: { code: string } } };

let store: Store;
let liveStore: Store;
let key: string;
let variantId: string;
const servers = await profileServer();

const createCart = (profile: string, target: Store = store) =>
  rest("POST", `/s/${target.slug}/carts`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID(), "ucp-agent": `profile="${profile}"` },
    body: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
  });

const codeOf = (res: JsonResponse<unknown>) =>
  (res.body as { messages: { code: string }[] }).messages[0]?.code;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  liveStore = await seedStore({ mode: "live" });
  variantId = (await seedProduct(store)).variants[0]!.id;
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

describe("REST: the agent profile decides the version", () => {
  test("a profile declaring 2026-04-08 negotiates it (echoed in ucp.version)", async () => {
    const res = await createCart(servers.url("ok"));
    assert.equal(res.status, 201, res.text);
    assert.equal((res.body as { ucp: { version: string } }).ucp.version, "2026-04-08");
  });

  test("a profile declaring a version we do not serve → 422 version_unsupported; nothing stored", async () => {
    const db = await getDb();
    const before = await db.cart.count({ where: { storeId: store.id } });
    const res = await createCart(servers.url("newer"));
    assert.equal(res.status, 422);
    assertTransportError(res.body);
    assert.equal(codeOf(res), "version_unsupported");
    assert.equal(await db.cart.count({ where: { storeId: store.id } }), before);
  });

  const failures: [ProfileName, number, string][] = [
    ["malformed", 422, "profile_malformed"],
    ["no-version", 422, "profile_malformed"],
    ["big", 422, "profile_malformed"],
    ["redirect", 424, "profile_unreachable"],
    ["error", 424, "profile_unreachable"],
  ];
  for (const [name, status, code] of failures) {
    test(`profile "${name}" → ${status} ${code}`, async () => {
      const res = await createCart(servers.url(name));
      assert.equal(res.status, status, res.text);
      assert.equal(codeOf(res), code);
    });
  }

  test("an unresolvable host → 424 profile_unreachable", async () => {
    const res = await createCart("https://agent.invalid/.well-known/ucp");
    assert.equal(res.status, 424);
    assert.equal(codeOf(res), "profile_unreachable");
  });

  test("a profile host that never answers → 424 after the timeout", async () => {
    const res = await createCart(servers.url("slow"));
    assert.equal(res.status, 424);
    assert.equal(codeOf(res), "profile_unreachable");
  });

  test("profiles are cached (≥ 60 s even when Cache-Control says 5 s): one fetch for many requests", async () => {
    const before = servers.hits("cached");
    for (let i = 0; i < 3; i++) assert.equal((await createCart(servers.url("cached"))).status, 201);
    assert.equal(servers.hits("cached") - before, 1);
  });

  test("a failure is remembered briefly: a broken profile is not refetched on every request", async () => {
    const before = servers.hits("error");
    await createCart(servers.url("error"));
    await createCart(servers.url("error"));
    assert.ok(servers.hits("error") - before <= 1);
  });

  test("credentials are checked before the profile is fetched: anonymous or a bad key never fetches it", async () => {
    const before = servers.hits("slow");
    const headers = { "idempotency-key": randomUUID(), "ucp-agent": `profile="${servers.url("slow")}"` };
    const body = { line_items: [{ item: { id: variantId }, quantity: 1 }] };
    const anonymous = await rest("POST", `/s/${store.slug}/carts`, { headers, body });
    assert.equal(anonymous.status, 403, anonymous.text);
    assert.equal(codeOf(anonymous), "insufficient_trust");
    const badKey = await rest("POST", `/s/${store.slug}/carts`, {
      headers: { ...headers, "x-api-key": "acs_not_a_key" },
      body,
    });
    assert.equal(badKey.status, 401, badKey.text);
    assert.equal(codeOf(badKey), "invalid_api_key");
    const catalog = await rest("POST", `/catalog/search`, { headers, body: { query: "tent" } });
    assert.equal(catalog.status, 200, catalog.text);
    assert.equal(servers.hits("slow"), before, "no request left the service");
  });

  test("a live store never fetches from private addresses → 400 invalid_profile_url", async () => {
    const before = servers.hits("ok");
    const res = await createCart(servers.url("ok"), liveStore);
    assert.equal(res.status, 400, res.text);
    assert.equal(codeOf(res), "invalid_profile_url");
    // http is refused before DNS even runs; an https URL on a private address is refused by the address check
    // (lib/outbound/guarded-fetch.test.ts)
    assert.match((res.body as { messages: { content: string }[] }).messages[0]!.content, /Only https/);
    assert.equal(servers.hits("ok"), before, "no request left the service");
  });
});

describe("MCP: the profile in meta is negotiated per call", () => {
  test("meta profile declaring an unknown version → HTTP 422, JSON-RPC -32001 version_unsupported", async () => {
    const res = await mcpCall(
      `/s/${store.slug}/mcp`,
      "get_cart",
      { id: "cart_x" },
      { headers: { "x-api-key": key }, meta: { "ucp-agent": { profile: servers.url("newer") } } },
    );
    assert.equal(res.status, 422);
    assert.equal((res.body as Rpc).error?.code, -32001);
    assert.equal((res.body as Rpc).error?.data.code, "version_unsupported");
  });

  test("meta profile unreachable → HTTP 424 profile_unreachable; nothing stored", async () => {
    const db = await getDb();
    const before = await db.cart.count({ where: { storeId: store.id } });
    const res = await mcpCall(
      `/s/${store.slug}/mcp`,
      "create_cart",
      { cart: { line_items: [{ item: { id: variantId }, quantity: 1 }] } },
      {
        headers: { "x-api-key": key },
        meta: { "ucp-agent": { profile: servers.url("error") }, "idempotency-key": randomUUID() },
      },
    );
    assert.equal(res.status, 424);
    assert.equal((res.body as Rpc).error?.data.code, "profile_unreachable");
    assert.equal(await db.cart.count({ where: { storeId: store.id } }), before);
  });

  test("an anonymous call never makes the service fetch the profile it names", async () => {
    // "slow" never answers: a fetch would end in 424 after the timeout
    const before = servers.hits("slow");
    const res = await mcpCall(
      `/mcp`,
      "get_product",
      { catalog: { id: "prod_x" } },
      {
        meta: { "ucp-agent": { profile: servers.url("slow") } },
      },
    );
    assert.equal(res.status, 200, res.text);
    const bad = await mcpCall(
      `/s/${store.slug}/mcp`,
      "get_cart",
      { id: "cart_x" },
      {
        headers: { "x-api-key": "acs_not_a_key" },
        meta: { "ucp-agent": { profile: servers.url("slow") } },
      },
    );
    assert.equal(bad.status, 401, bad.text);
    assert.equal(servers.hits("slow"), before);
  });

  test("a live store refuses a loopback meta profile", async () => {
    const res = await mcpCall(
      `/s/${liveStore.slug}/mcp`,
      "get_product",
      { catalog: { id: "prod_x" } },
      {
        headers: { "x-api-key": key },
      },
    );
    assert.equal(res.status, 400);
    assert.equal((res.body as Rpc).error?.data.code, "invalid_profile_url");
  });
});
