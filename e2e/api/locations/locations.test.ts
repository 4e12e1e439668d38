import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startAgentProfileServer } from "@agent-commerce/agent-kit";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";

import { seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { assertMcpProtocolError } from "../../helpers/mcp-errors";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { connectBridge, resultJson, serviceFetch, TEST_BASE_URL, toolError } from "../bridge/helpers";

// search_locations and lookup_locations on the per-store MCP (official SDK client) and REST: text, distance
// (micro-degrees, meters, nearest first), services, filters (country, region, locality, services), pagination with
// signed cursors; lookup by id within the store.

type Loc = {
  id: string;
  name: string;
  distance_m?: number;
  services: string[];
  geo: { latitude_e6: number };
};
type LocBody = {
  locations: Loc[];
  pagination?: { has_next_page: boolean; cursor?: string; total_count: number };
};

let store: Store;
let other: Store;
const ids: Record<string, string> = {};
let client: McpClient;

const address = (street: string, city: string, region: string) => ({
  street_address: street,
  address_locality: city,
  address_region: region,
  postal_code: "00000",
  address_country: "US",
});

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  other = await seedStore();
  const db = await getDb();
  const rows = [
    [
      "boulder",
      store,
      "Boulder Flagship",
      address("1650 Pearl St", "Boulder", "CO"),
      40_018_900,
      -105_275_800,
      ["pickup", "repairs"],
    ],
    [
      "denver",
      store,
      "Denver Union Station",
      address("1701 Wynkoop St", "Denver", "CO"),
      39_752_900,
      -104_999_900,
      ["pickup"],
    ],
    [
      "seattle",
      store,
      "Seattle Outlet",
      address("1 Pike St", "Seattle", "WA"),
      47_609_700,
      -122_342_200,
      ["returns"],
    ],
    [
      "foreign",
      other,
      "Other Store Depot",
      address("2 Main St", "Boulder", "CO"),
      40_010_000,
      -105_270_000,
      ["pickup"],
    ],
  ] as const;
  for (const [key, s, name, addr, lat, lon, services] of rows) {
    const id = newId("location");
    ids[key] = id;
    await db.location.create({
      data: {
        id,
        storeId: s.id,
        name,
        address: addr,
        latitudeE6: lat,
        longitudeE6: lon,
        services: [...services],
        openingHours: [{ day: 1, open: "09:00", close: "18:00" }],
      },
    });
  }
  client = await connectMcpClient(`/s/${store.slug}/mcp`);
});
after(async () => {
  await client.close();
  await closeTestDatabase();
});

const call = async (name: string, catalog: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: { meta: toolMeta(), catalog } });
  assert.ok(!result.isError, JSON.stringify(result));
  return result.structuredContent as LocBody;
};
const keys = (body: LocBody) =>
  body.locations.map((l) => Object.entries(ids).find(([, id]) => id === l.id)?.[0]);

describe("search_locations (per-store MCP)", () => {
  test("text query over name and address; only this store's locations", async () => {
    assert.deepEqual(keys(await call("search_locations", { query: "boulder" })), ["boulder"]);
    assert.deepEqual(keys(await call("search_locations", { query: "co" })).sort(), ["boulder", "denver"]);
    assert.deepEqual((await call("search_locations", { query: "Depot" })).locations, []);
  });

  test("distance: nearest first with distance_m in whole meters; max_meters bounds it", async () => {
    const near = { latitude_e6: 39_750_000, longitude_e6: -105_000_000 };
    const body = await call("search_locations", { distance: near });
    assert.deepEqual(keys(body), ["denver", "boulder", "seattle"]);
    assert.ok(body.locations.every((l) => Number.isInteger(l.distance_m)));
    assert.ok(body.locations[0]!.distance_m! < 1_000);
    const bounded = await call("search_locations", { distance: { ...near, max_meters: 50_000 } });
    assert.deepEqual(keys(bounded), ["denver", "boulder"]);
  });

  test("serves: every listed service must be offered", async () => {
    assert.deepEqual(keys(await call("search_locations", { serves: ["pickup", "repairs"] })), ["boulder"]);
    assert.deepEqual(keys(await call("search_locations", { serves: ["PICKUP"] })).sort(), [
      "boulder",
      "denver",
    ]);
  });

  test("pagination: signed cursors, no gaps or duplicates; a forged cursor is invalid_request", async () => {
    const p1 = await call("search_locations", { pagination: { limit: 2 } });
    assert.equal(p1.pagination?.total_count, 3);
    const p2 = await call("search_locations", { pagination: { limit: 2, cursor: p1.pagination?.cursor } });
    assert.equal(p2.pagination?.has_next_page, false);
    const all = [...p1.locations, ...p2.locations].map((l) => l.id);
    assert.deepEqual([...all].sort(), [ids.boulder, ids.denver, ids.seattle].sort());
    await assertMcpProtocolError(
      client.callTool({
        name: "search_locations",
        arguments: {
          meta: toolMeta(),
          catalog: { query: "co", pagination: { cursor: p1.pagination?.cursor } },
        },
      }),
      { rpcCode: -32602, code: "invalid_request", path: "$.pagination.cursor" },
    );
  });

  test("bad input → -32602 invalid_request with a JSONPath", async () => {
    for (const [catalog, path] of [
      [{ distance: { latitude_e6: 91_000_000, longitude_e6: 0 } }, "$.distance.latitude_e6"],
      [{ distance: { latitude_e6: 1.5, longitude_e6: 0 } }, "$.distance.latitude_e6"],
      [{ query: "x".repeat(300) }, "$.query"],
      [{ pagination: { limit: 500 } }, "$.pagination.limit"],
      [{ serves: "pickup" }, "$.serves"],
    ] as const) {
      await assertMcpProtocolError(
        client.callTool({ name: "search_locations", arguments: { meta: toolMeta(), catalog } }),
        { rpcCode: -32602, code: "invalid_request", path },
      );
    }
  });

  test("the global MCP does not offer location tools", async () => {
    const global = await connectMcpClient("/mcp");
    try {
      const { tools } = await global.listTools();
      assert.ok(!tools.some((t) => t.name.includes("location")));
    } finally {
      await global.close();
    }
  });
});

describe("lookup_locations (per-store MCP)", () => {
  test("by id in one batch; another store's id and unknown ids are info messages", async () => {
    const body = (await call("lookup_locations", {
      ids: [ids.seattle, ids.foreign, ids.boulder, "loc_nope"],
    })) as LocBody & {
      messages: { code: string }[];
    };
    assert.deepEqual(keys(body), ["seattle", "boulder"]);
    assert.equal(body.locations[0]?.geo.latitude_e6, 47_609_700);
    assert.deepEqual(
      body.messages.map((m) => m.code),
      ["not_found", "not_found"],
    );
  });

  test("over 50 ids → -32602 request_too_large", async () => {
    await assertMcpProtocolError(
      client.callTool({
        name: "lookup_locations",
        arguments: { meta: toolMeta(), catalog: { ids: Array.from({ length: 51 }, (_, i) => `loc_${i}`) } },
      }),
      { rpcCode: -32602, code: "request_too_large", path: "$.ids" },
    );
  });
});

describe("location filters (MCP and REST)", () => {
  const restCall = async (op: "search" | "lookup", body: Record<string, unknown>) => {
    const res = await rest<LocBody & { messages?: { code: string }[] }>(
      "POST",
      `/s/${store.slug}/locations/${op}`,
      { body },
    );
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const mcpCall = async (op: "search" | "lookup", body: Record<string, unknown>) =>
    (await call(`${op}_locations`, body)) as LocBody & { messages?: { code: string }[] };

  for (const [surface, run] of [
    ["MCP", mcpCall],
    ["REST", restCall],
  ] as const) {
    test(`${surface}: every filter must match; text ignores case; lookup leaves out the others with a message`, async () => {
      const search = async (filters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        keys(await run("search", { filters, ...extra })).sort();
      assert.deepEqual(await search({ country: "us" }), ["boulder", "denver", "seattle"]);
      assert.deepEqual(await search({ country: "CA" }), []);
      assert.deepEqual(await search({ region: "co" }), ["boulder", "denver"]);
      assert.deepEqual(await search({ region: "CO", locality: " boulder " }), ["boulder"]);
      assert.deepEqual(await search({ services: ["Returns"] }), ["seattle"]);
      assert.deepEqual(await search({ country: "US", services: ["pickup", "repairs"] }), ["boulder"]);
      // filters alone or with a query and paging: the cursor belongs to those filters
      const page = await run("search", { filters: { region: "CO" }, pagination: { limit: 1 } });
      assert.equal(page.pagination?.total_count, 2);
      const next = await run("search", {
        filters: { region: "CO" },
        pagination: { limit: 1, cursor: page.pagination?.cursor },
      });
      assert.deepEqual([...keys(page), ...keys(next)].sort(), ["boulder", "denver"]);

      const looked = await run("lookup", { ids: [ids.seattle, ids.boulder], filters: { region: "CO" } });
      assert.deepEqual(keys(looked), ["boulder"]);
      assert.deepEqual(
        looked.messages?.map((m) => m.code),
        ["filtered_out"],
      );
    });
  }

  test("bad filters are refused with their JSONPath on both surfaces", async () => {
    const bad: [string, Record<string, unknown>, string][] = [
      ["search", { filters: { country: "USA" } }, "$.filters.country"],
      ["search", { filters: { colour: "red" } }, "$.filters"],
      ["search", { filters: { services: [] } }, "$.filters.services"],
      ["search", { filters: "pickup" }, "$.filters"],
      ["lookup", { ids: [ids.boulder], filters: { region: "" } }, "$.filters.region"],
    ];
    for (const [op, body, path] of bad) {
      await assertMcpProtocolError(
        client.callTool({ name: `${op}_locations`, arguments: { meta: toolMeta(), catalog: body } }),
        { rpcCode: -32602, code: "invalid_request", path },
      );
      const res = await rest<{ messages: { code: string; path?: string }[] }>(
        "POST",
        `/s/${store.slug}/locations/${op}`,
        { body },
      );
      assert.equal(res.status, 400, res.text);
      assert.deepEqual([res.body.messages[0]?.code, res.body.messages[0]?.path], ["invalid_request", path]);
    }
  });
});

test("the bridge: search_locations / lookup_locations pass filters through; bad ones are tool errors with the path", async () => {
  const profile = await startAgentProfileServer();
  const bridge = await connectBridge({
    baseUrl: TEST_BASE_URL,
    agentProfileUrl: profile.profileUrl,
    key: profile.key,
    fetch: serviceFetch(),
    retry: { baseDelayMs: 1, sleep: async () => {} },
  });
  try {
    const found = resultJson(
      await bridge.callTool({
        name: "search_locations",
        arguments: { store_slug: store.slug, filters: { region: "co", services: ["repairs"] } },
      }),
    ) as LocBody;
    assert.deepEqual(keys(found), ["boulder"]);
    const looked = resultJson(
      await bridge.callTool({
        name: "lookup_locations",
        arguments: {
          store_slug: store.slug,
          ids: [ids.denver, ids.seattle],
          filters: { country: "US", region: "WA" },
        },
      }),
    ) as LocBody;
    assert.deepEqual(keys(looked), ["seattle"]);
    const bad = toolError(
      await bridge.callTool({
        name: "search_locations",
        arguments: { store_slug: store.slug, filters: { country: "United States" } },
      }),
    );
    assert.deepEqual([bad.code, bad.path], ["invalid_request", "$.filters.country"]);
  } finally {
    await bridge.close();
    await profile.close();
  }
});
