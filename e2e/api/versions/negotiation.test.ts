import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { profileServer, type ProfileName } from "../../helpers/agent-profile-server";
import { mcpCall, rest, type JsonResponse } from "../../helpers/app-client";
import { agentProfile0111, agentProfile0123 } from "../../helpers/older-agent-profiles";
import { assertTransportError, assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Agents speaking the older UCP versions (docs/ucp-versions.md §1.3): their profiles are read in their own shapes
// (a 2026-01-11 capability array is not profile_malformed) and their version is served. Bad version strings —
// malformed, older than any, between two we serve, in the future — are refused with nothing stored.

type Rpc = { error?: { code: number; data: { code: string; content: string } } };

let store: Store;
let key: string;
let variantId: string;
const servers = await profileServer();

const createCheckout = (profile: string) =>
  rest("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "idempotency-key": randomUUID(), "ucp-agent": `profile="${profile}"` },
    body: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
  });

const firstMessage = (res: JsonResponse<unknown>) =>
  (res.body as { messages: { code: string; content: string }[] }).messages[0]!;

const checkouts = async () => (await getDb()).checkoutSession.count({ where: { storeId: store.id } });

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store)).variants[0]!.id;
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

describe("older agent profiles", () => {
  test("the fixtures are valid profiles of their own versions", () => {
    assertUcpSchema(
      "ucp.json#/$defs/discovery_profile",
      agentProfile0111("https://a.example").ucp,
      "2026-01-11",
    );
    assertUcpSchema(
      "ucp.json#/$defs/platform_schema",
      agentProfile0123("https://a.example").ucp,
      "2026-01-23",
    );
  });

  for (const version of ["2026-01-11", "2026-01-23"] as const) {
    test(`REST: a profile declaring ${version} is served at that version`, async () => {
      const res = await createCheckout(servers.url(`v${version}`));
      assert.equal(res.status, 201, res.text);
      assert.equal((res.body as { ucp: { version: string } }).ucp.version, version);
    });
  }

  test("REST: the UCP-Agent version directive is informational: the profile's version wins", async () => {
    const res = await rest("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: {
        "x-api-key": key,
        "idempotency-key": randomUUID(),
        "ucp-agent": `profile="${servers.url("v2026-01-23")}", version="2026-01-11"`,
      },
      body: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((res.body as { ucp: { version: string } }).ucp.version, "2026-01-23");
  });

  const refused: [ProfileName, number, string][] = [
    // older than any, and between two known versions (ours is the 2026-04-08 rule: 04-08 overview.md:1912-1913)
    ["v2025-12-01", 422, "version_unsupported"],
    ["v2026-02-15", 422, "version_unsupported"],
    ["newer", 422, "version_unsupported"],
    // not YYYY-MM-DD: the profile fails its schema (ucp.json#/$defs/version)
    ["v2026-1-11", 422, "profile_malformed"],
  ];
  for (const [name, status, code] of refused) {
    test(`REST: the profile "${name}" → ${status} ${code}; nothing stored`, async () => {
      const before = await checkouts();
      const res = await createCheckout(servers.url(name));
      assert.equal(res.status, status, res.text);
      assertTransportError(res.body);
      assert.equal(firstMessage(res).code, code);
      if (code === "version_unsupported") {
        assert.match(firstMessage(res).content, /speaks 2026-04-08, 2026-01-11, 2026-01-23 over REST/);
      }
      assert.equal(await checkouts(), before);
    });
  }

  test("MCP: a profile between two versions we serve → JSON-RPC -32001 version_unsupported; nothing stored", async () => {
    const before = await checkouts();
    const res = await mcpCall(
      `/s/${store.slug}/mcp`,
      "create_checkout",
      { checkout: { line_items: [{ item: { id: variantId }, quantity: 1 }] } },
      {
        headers: { "x-api-key": key },
        meta: { "ucp-agent": { profile: servers.url("v2026-02-15") }, "idempotency-key": randomUUID() },
      },
    );
    assert.equal(res.status, 422, res.text);
    assert.equal((res.body as Rpc).error?.code, -32001);
    assert.equal((res.body as Rpc).error?.data.code, "version_unsupported");
    assert.match((res.body as Rpc).error!.data.content, /speaks 2026-04-08, 2026-01-11, 2026-01-23 over MCP/);
    assert.equal(await checkouts(), before);
  });

  test("the store profile advertises both older versions; the apex none", async () => {
    const res = await rest<{ ucp: { supported_versions?: Record<string, string> } }>(
      "GET",
      `/s/${store.slug}/.well-known/ucp`,
    );
    assert.deepEqual(Object.keys(res.body.ucp.supported_versions ?? {}), ["2026-01-11", "2026-01-23"]);
    const apex = await rest<{ ucp: object }>("GET", "/.well-known/ucp");
    assert.equal(
      "supported_versions" in apex.body.ucp,
      false,
      "nothing at the apex exists at those versions",
    );
  });
});
