import assert from "node:assert/strict";
import { test } from "node:test";

import { UcpError } from "./client.js";
import { createUcpTransport } from "./transport.js";

// The generic transport against a scripted fetch (a test double of the service): MCP tools/call with meta (the
// profile; the idempotency key only on state-changing calls, the same on every retry), JSON-RPC errors and
// non-2xx answers as UcpError with the answer's headers (a 401's WWW-Authenticate), 409 idempotency_in_flight
// read from the JSON-RPC error's data.code and waited, credentials as given (the bearer alone when alone).

type Sent = { url: string; headers: Headers; body: Record<string, unknown> | null };

const scripted = (answers: (Response | Error)[]) => {
  const sent: Sent[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    sent.push({
      url,
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : null,
    });
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    if (next instanceof Error) throw next;
    return next;
  };
  return { sent, fetch };
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const result = (structuredContent: object) =>
  json(200, { jsonrpc: "2.0", id: 1, result: { structuredContent } });

const transport = (fetch: ReturnType<typeof scripted>["fetch"], agentProfileUrl?: string) =>
  createUcpTransport({
    baseUrl: "http://svc.test/",
    ...(agentProfileUrl ? { agentProfileUrl } : {}),
    fetch,
    retry: { sleep: async () => {} },
  });

const metaOf = (s: Sent) =>
  ((s.body?.params as { arguments: { meta?: Record<string, unknown> } }).arguments.meta ?? null) as Record<
    string,
    unknown
  > | null;

test("a state-changing tool call: meta carries the profile and one key, kept across a lost answer and a 5xx", async () => {
  const { sent, fetch } = scripted([
    new TypeError("fetch failed"),
    json(503, { code: "unavailable" }),
    result({ id: "cart_1" }),
  ]);
  const answer = await transport(fetch, "https://agent.test/.well-known/ucp").tool(
    "/s/shop/mcp",
    "create_cart",
    { cart: { line_items: [] } },
    { mutates: true, credentials: { apiKey: "k" } },
  );
  assert.deepEqual(answer.structuredContent, { id: "cart_1" });
  assert.equal(sent.length, 3);
  const keys = sent.map((s) => metaOf(s)?.["idempotency-key"]);
  assert.ok(typeof keys[0] === "string" && keys.every((k) => k === keys[0]), JSON.stringify(keys));
  assert.equal(
    new Set(sent.map((s) => s.headers.get("request-id"))).size,
    3,
    "a fresh Request-Id per attempt",
  );
  for (const s of sent) {
    assert.equal(s.url, "http://svc.test/s/shop/mcp");
    assert.deepEqual(metaOf(s)?.["ucp-agent"], { profile: "https://agent.test/.well-known/ucp" });
    assert.equal(s.headers.get("ucp-agent"), 'profile="https://agent.test/.well-known/ucp"');
    assert.equal(s.headers.get("x-api-key"), "k");
    assert.equal(s.headers.get("authorization"), null);
  }
});

test("409 idempotency_in_flight as a JSON-RPC error is waited and retried with the same key; a read has no key", async () => {
  const inFlight = json(
    409,
    {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32000, message: "busy", data: { code: "idempotency_in_flight" } },
    },
    { "retry-after": "0" },
  );
  const { sent, fetch } = scripted([inFlight, result({ ok: true }), result({ id: "x" })]);
  const t = transport(fetch, "https://agent.test/p");
  await t.tool("/s/shop/mcp", "complete_checkout", { id: "chk" }, { mutates: true });
  assert.equal(sent.length, 2);
  assert.equal(metaOf(sent[0]!)?.["idempotency-key"], metaOf(sent[1]!)?.["idempotency-key"]);
  await t.tool("/s/shop/mcp", "get_cart", { id: "cart" });
  assert.equal(metaOf(sent[2]!)?.["idempotency-key"], undefined);
});

test("a 401 throws UcpError with the status, code and WWW-Authenticate; the bearer was sent alone, no meta", async () => {
  const challenge = 'Bearer error="invalid_token", resource_metadata="http://svc.test/.well-known/x"';
  const { sent, fetch } = scripted([
    json(
      401,
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001, message: "expired", data: { code: "invalid_token" } },
      },
      { "www-authenticate": challenge },
    ),
  ]);
  const error = await transport(fetch)
    .tool("/account/mcp", "list_my_orders", {}, { credentials: { authorization: "Bearer t" } })
    .then(
      () => assert.fail("resolved"),
      (e: unknown) => e,
    );
  assert.ok(error instanceof UcpError);
  assert.deepEqual([error.status, error.code], [401, "invalid_token"]);
  assert.equal(error.headers.get("www-authenticate"), challenge);
  assert.equal(sent[0]!.headers.get("authorization"), "Bearer t");
  assert.equal(sent[0]!.headers.get("x-api-key"), null);
  assert.equal(metaOf(sent[0]!), null, "the account surface needs no meta");
});

test("a JSON-RPC error on HTTP 200 and a REST non-2xx both throw with the code and the JSONPath", async () => {
  const { fetch } = scripted([
    json(200, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32602,
        message: "bad",
        data: { code: "invalid_request", content: "bad id", path: "$.id" },
      },
    }),
    json(400, {
      code: "invalid_request",
      content: "bad",
      messages: [{ type: "error", code: "invalid_request", content: "bad", path: "$.query" }],
    }),
  ]);
  const t = transport(fetch);
  const rpc = await t.tool("/mcp", "get_product", {}).catch((e: unknown) => e);
  assert.ok(rpc instanceof UcpError);
  assert.deepEqual([rpc.code, rpc.messages[0]?.path], ["invalid_request", "$.id"]);
  const rest = await t.rest("POST", "/catalog/search", {}, { mutates: false }).catch((e: unknown) => e);
  assert.ok(rest instanceof UcpError);
  assert.deepEqual([rest.status, rest.code, rest.messages[0]?.path], [400, "invalid_request", "$.query"]);
});

test("a service that never answers: each attempt times out, the retries keep the key, then the call fails", async () => {
  const keys: unknown[] = [];
  // a request left open holds the process as a real one's socket does: the transport's timeout alone does not
  // (AbortSignal.timeout's timer is unref'd), and without it the runner may find the event loop empty mid-test
  const hanging = (_url: string, init: RequestInit) =>
    new Promise<Response>((_resolve, reject) => {
      const body = JSON.parse(String(init.body)) as {
        params: { arguments: { meta: Record<string, unknown> } };
      };
      keys.push(body.params.arguments.meta["idempotency-key"]);
      const socket = setInterval(() => {}, 1_000);
      init.signal?.addEventListener("abort", () => {
        clearInterval(socket);
        reject(init.signal?.reason);
      });
    });
  const t = createUcpTransport({
    baseUrl: "http://svc.test",
    agentProfileUrl: "https://agent.test/p",
    fetch: hanging,
    timeoutMs: 20,
    retry: { attempts: 3, sleep: async () => {} },
  });
  const started = Date.now();
  const error = await t
    .tool("/s/shop/mcp", "complete_checkout", { id: "chk" }, { mutates: true })
    .catch((e: unknown) => e);
  assert.ok(error instanceof Error && error.name === "TimeoutError", String(error));
  assert.equal(keys.length, 3);
  assert.ok(keys.every((k) => typeof k === "string" && k === keys[0]));
  assert.ok(Date.now() - started < 5_000);
});
