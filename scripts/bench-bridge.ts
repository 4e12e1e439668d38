// `npm run bench:bridge`: what the bridge adds to a call. The same lookups, made N times raw (a store's MCP
// get_product, the global REST /catalog/search) and through the bridge (get_product, search_products), against
// the real route handlers in-process on an in-memory PGlite (as the integration tests run), so the difference is
// the bridge's own work: its MCP server per request, argument validation and mapping, the kit transport, the
// formatting of money. A deployed bridge adds one network hop on top. Prints p50/p95; asserts nothing.
// Usage: npm run bench:bridge [-- --calls=<n>]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { startAgentProfileServer } from "@agent-commerce/agent-kit";

import { seedCatalogProduct, seedPlatformKey, seedStore } from "../e2e/factories";
import { callApp, TEST_BASE_URL } from "../e2e/helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../e2e/support/test-db";
import { handleBridgeMcp, type BridgeOptions } from "../lib/bridge/http";

const { values } = parseArgs({ options: { calls: { type: "string", default: "200" } } });
const calls = Math.max(10, Number(values.calls));

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

const measure = async (label: string, run: () => Promise<void>) => {
  for (let i = 0; i < 10; i++) await run(); // warm-up: module loading, caches
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 0.5);
  const p95 = percentile(times, 0.95);
  console.log(
    `  ${label.padEnd(44)} p50 ${p50.toFixed(2).padStart(7)} ms   p95 ${p95.toFixed(2).padStart(7)} ms`,
  );
  return { p50, p95 };
};

const ok = async (response: Response) => {
  const text = await response.text();
  if (response.status !== 200 || text.includes('"isError":true'))
    throw new Error(`${response.status} ${text}`);
};

await prepareTestDatabase();
const agent = await startAgentProfileServer();
try {
  const store = await seedStore();
  const product = await seedCatalogProduct(store, {
    title: "Bench Lantern",
    variants: [{ priceMinor: 2450, inventory: 5 }],
  });
  const apiKey = (await seedPlatformKey(["purchase:complete"])).key;
  const inProcess = async (url: string, init: RequestInit) => {
    const target = new URL(url);
    return callApp(init.method ?? "GET", `${target.pathname}${target.search}`, {
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(typeof init.body === "string" ? { rawBody: init.body } : {}),
    });
  };
  const options: BridgeOptions = {
    baseUrl: TEST_BASE_URL,
    agentProfileUrl: agent.profileUrl,
    key: agent.key,
    fetch: inProcess,
  };
  const envelope = () => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "request-id": randomUUID(),
    "ucp-agent": `profile="${agent.profileUrl}"`,
    "x-api-key": apiKey,
  });
  const bridge = (name: string, args: Record<string, unknown>) =>
    handleBridgeMcp(
      new Request("http://bridge.bench/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-api-key": apiKey },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      }),
      options,
    );

  console.log(`bridge overhead, ${calls} sequential calls each (in-process handlers, PGlite in memory):`);
  const rawGet = await measure("raw  POST /s/:slug/mcp get_product", async () =>
    ok(
      await callApp("POST", `/s/${store.slug}/mcp`, {
        headers: envelope(),
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "get_product",
            arguments: { catalog: { id: product.id }, meta: { "ucp-agent": { profile: agent.profileUrl } } },
          },
        },
      }),
    ),
  );
  const bridgeGet = await measure("bridge get_product {store_slug, id}", async () =>
    ok(await bridge("get_product", { store_slug: store.slug, id: product.id })),
  );
  const rawSearch = await measure("raw  POST /catalog/search", async () =>
    ok(await callApp("POST", "/catalog/search", { headers: envelope(), body: { query: "lantern" } })),
  );
  const bridgeSearch = await measure("bridge search_products {query}", async () =>
    ok(await bridge("search_products", { query: "lantern" })),
  );
  const signed = (ms: number) => `${ms >= 0 ? "+" : ""}${ms.toFixed(2)}`;
  const delta = (a: { p50: number; p95: number }, b: { p50: number; p95: number }) =>
    `${signed(b.p50 - a.p50)} ms p50, ${signed(b.p95 - a.p95)} ms p95`;
  console.log(
    `  overhead get_product: ${delta(rawGet, bridgeGet)}; search: ${delta(rawSearch, bridgeSearch)}`,
  );
} finally {
  await agent.close();
  await closeTestDatabase();
}
