import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedStore } from "../../factories";
import { AGENT_PROFILE, callApp, TEST_BASE_URL } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A stock MCP client (DECISIONS.md B19): the official SDK's Client over StreamableHTTPClientTransport with static
// headers only. initialize, notifications/initialized, ping and tools/list are MCP transport, not UCP operations:
// they need neither Request-Id nor UCP-Agent. A tool call keeps the seed's rules, and a missing header names
// itself; with a custom fetch that adds a Request-Id per request (and UCP-Agent as a static header) it works.

let store: Store;
let key: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

/** The SDK client with `headers` as its only extra headers; `perRequest` runs for every HTTP request it makes. */
const stockClient = async (
  endpoint: string,
  headers: Record<string, string>,
  perRequest: () => Record<string, string> = () => ({}),
) => {
  const seen: Headers[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(endpoint, TEST_BASE_URL), {
    requestInit: { headers },
    fetch: async (url: string | URL, init?: RequestInit) => {
      const merged = new Headers(init?.headers);
      for (const [name, value] of Object.entries(perRequest())) merged.set(name, value);
      seen.push(merged);
      return callApp(init?.method ?? "GET", new URL(url).pathname, {
        headers: Object.fromEntries(merged.entries()),
        rawBody: typeof init?.body === "string" ? init.body : undefined,
      });
    },
  });
  const client = new Client({ name: "stock-client", version: "1.0.0" });
  await client.connect(transport);
  return { client, seen };
};

test("initialize, ping and tools/list need neither Request-Id nor UCP-Agent (global and per-store MCP)", async () => {
  for (const endpoint of ["/mcp", `/s/${store.slug}/mcp`]) {
    const { client, seen } = await stockClient(endpoint, { "x-api-key": key });
    try {
      assert.ok(
        seen.every((h) => !h.has("request-id") && !h.has("ucp-agent")),
        "a stock client sends neither",
      );
      assert.deepEqual(await client.ping(), {});
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === "search_catalog"),
        endpoint,
      );
    } finally {
      await client.close();
    }
  }
});

test("a tool call keeps the seed's rules: without Request-Id the error names the header and what to send", async () => {
  const { client } = await stockClient(`/s/${store.slug}/mcp`, { "x-api-key": key });
  try {
    await assert.rejects(
      client.callTool({
        name: "search_catalog",
        arguments: { meta: { "ucp-agent": { profile: AGENT_PROFILE } }, catalog: { query: "boots" } },
      }),
      /missing_request_id|Request-Id header is required/,
    );
  } finally {
    await client.close();
  }
});

test("with a per-request Request-Id from a custom fetch and UCP-Agent as a static header, tool calls work", async () => {
  const { client, seen } = await stockClient(
    `/s/${store.slug}/mcp`,
    { "x-api-key": key, "ucp-agent": `profile="${AGENT_PROFILE}"` },
    () => ({ "request-id": randomUUID() }),
  );
  try {
    const result = await client.callTool({
      name: "search_catalog",
      arguments: { meta: { "ucp-agent": { profile: AGENT_PROFILE } }, catalog: { query: "boots" } },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    const ids = seen.map((h) => h.get("request-id"));
    assert.equal(new Set(ids).size, ids.length, "a fresh Request-Id on every request");
  } finally {
    await client.close();
  }
});
