import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";

// The built service over real HTTP (Next's router, our HTTP server): what in-process handler tests cannot see —
// routing of unknown paths, header-size limits enforced before Next, the body limit on a real socket, the demo
// key printed by `npm start`, and interoperability with the official MCP SDK client.

// The service publishes an example agent profile; the (test-mode) demo stores may fetch it over loopback http.
const AGENT = `http://127.0.0.1:${process.env.E2E_PORT}/demo/agent/.well-known/ucp`;
const envelope = () => ({ "request-id": randomUUID(), "ucp-agent": `profile="${AGENT}"` });
type ErrorBody = { ucp: { status: string }; messages: { code: string }[] };

const demoKey = (): string => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  return (
    JSON.parse(readFileSync(path.join(path.dirname(dir), "demo-platform-key.json"), "utf8")) as {
      key: string;
    }
  ).key;
};

test("unknown paths answer 404 route_not_found in the UCP envelope (seed: /checkouts is the wrong path)", async ({
  request,
}) => {
  for (const [method, url] of [
    ["GET", "/no/such/path"],
    ["POST", "/s/summit-trail-outfitters/checkouts"],
    ["DELETE", "/catalog/nothing"],
  ] as const) {
    const res = await request.fetch(url, { method, headers: envelope() });
    expect(res.status(), url).toBe(404);
    const body = (await res.json()) as ErrorBody;
    expect(body.ucp.status).toBe("error");
    expect(body.messages[0]?.code).toBe("route_not_found");
  }
  const store = await request.get("/s/no-such-store/carts", { headers: envelope() });
  expect(store.status()).toBe(404);
  expect(((await store.json()) as ErrorBody).messages[0]?.code).toBe("store_not_found");
});

test("a method a route does not serve → 405 method_not_allowed in the envelope (not Next's empty 405)", async ({
  request,
}) => {
  const res = await request.fetch("/s/summit-trail-outfitters/carts", {
    method: "PATCH",
    headers: envelope(),
  });
  expect(res.status()).toBe(405);
  expect(res.headers()["allow"]).toBe("POST");
  expect(((await res.json()) as ErrorBody).messages[0]?.code).toBe("method_not_allowed");
});

test("oversized request headers → 431 headers_too_large in the UCP envelope, from the HTTP server itself", async ({
  baseURL,
}) => {
  const url = new URL("/.well-known/ucp", baseURL);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: "GET", headers: { "x-padding": "a".repeat(20_000) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end();
  });
  expect(status).toBe(431);
  expect((JSON.parse(body) as ErrorBody).messages[0]?.code).toBe("headers_too_large");
});

test("a body over 1 MB → 413 payload_too_large; nothing is created", async ({ request }) => {
  const res = await request.post("/s/summit-trail-outfitters/carts", {
    headers: {
      ...envelope(),
      "x-api-key": demoKey(),
      "idempotency-key": randomUUID(),
      "content-type": "application/json",
    },
    data: JSON.stringify({ line_items: [], pad: "x".repeat(1_100_000) }),
  });
  expect(res.status()).toBe(413);
  expect(((await res.json()) as ErrorBody).messages[0]?.code).toBe("payload_too_large");
});

test("the example agent profile the service publishes is a valid profile to negotiate with", async ({
  request,
}) => {
  const res = await request.get(AGENT);
  expect(res.status()).toBe(200);
  expect(((await res.json()) as { ucp: { version: string } }).ucp.version).toBe("2026-04-08");
});

test("demo product media resolve: the placeholder image is served", async ({ request }) => {
  const res = await request.get("/media/placeholder.svg");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("image/svg+xml");
});

test("the demo platform key printed by npm start reaches the token tier", async ({ request }) => {
  const anonymous = await request.get("/s/summit-trail-outfitters/carts/cart_x", { headers: envelope() });
  expect(anonymous.status()).toBe(403);
  const keyed = await request.get("/s/summit-trail-outfitters/carts/cart_x", {
    headers: { ...envelope(), "x-api-key": demoKey() },
  });
  expect(keyed.status()).toBe(200);
  expect(((await keyed.json()) as ErrorBody).messages[0]?.code).toBe("not_found");
});

test("the official MCP SDK client talks to a store's MCP: tools, annotations, results and tool errors", async ({
  baseURL,
}) => {
  // Request-Id must be fresh on every request (seed §4), so the client's fetch adds it per call.
  const fetchWithEnvelope: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries({ ...envelope(), "x-api-key": demoKey() })) headers.set(k, v);
    return fetch(input, { ...init, headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL("/s/summit-trail-outfitters/mcp", baseURL), {
    fetch: fetchWithEnvelope,
  });
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["get_product", "create_cart", "get_cart", "update_cart", "cancel_cart"]),
    );
    expect(tools.find((t) => t.name === "cancel_cart")?.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === "get_cart")?.annotations?.readOnlyHint).toBe(true);

    const missing = await client.callTool({
      name: "get_product",
      arguments: { meta: { "ucp-agent": { profile: AGENT } }, catalog: { id: "prod_does_not_exist" } },
    });
    const content = missing.structuredContent as ErrorBody;
    expect(content.ucp.status).toBe("error");
    expect(content.messages[0]?.code).toBe("not_found");

    await expect(
      client.callTool({
        name: "create_cart",
        arguments: {
          meta: { "ucp-agent": { profile: AGENT } },
          cart: { line_items: [{ item: { id: "var_x" }, quantity: 1 }] },
        },
      }),
    ).rejects.toThrow("Tool create_cart requires meta[idempotency-key]");
  } finally {
    await client.close();
  }
});
