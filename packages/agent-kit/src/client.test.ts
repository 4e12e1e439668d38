import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import { decodeProtectedHeader } from "jose";

import { cardCompletion, createShoppingClient, UcpError } from "./client.js";
import { generateAgentKey } from "./profile-server.js";
import type { Checkout } from "./types.js";

// The REST client against a local test double of the store's REST surface, scripted per path: what each request
// carries (Request-Id fresh per attempt, Idempotency-Key kept across the retries of one call, never on GET, the
// UCP-Agent and API key), retries by our rules, non-2xx as UcpError with the code and JSONPath.

type Seen = { method: string; path: string; headers: IncomingMessage["headers"]; body: string };
const seen: Seen[] = [];
const scripts = new Map<string, { status: number; body: unknown; headers?: Record<string, string> }[]>();
let base = "";

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const key = `${req.method} ${req.url}`;
    seen.push({
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    });
    const next = scripts.get(key)?.shift() ?? {
      status: 404,
      body: { code: "route_not_found", content: key },
    };
    res
      .writeHead(next.status, { "content-type": "application/json", ...next.headers })
      .end(JSON.stringify(next.body));
  });
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const key = generateAgentKey("kit-client");
const client = () =>
  createShoppingClient({
    baseUrl: `${base}/`,
    store: "acme",
    apiKey: "acs_test",
    agentProfileUrl: "http://127.0.0.1:9/.well-known/ucp",
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });

const checkout: Checkout = {
  id: "chk_1",
  status: "ready_for_complete",
  currency: "USD",
  line_items: [{ item: { id: "var_1", price: 1000 }, quantity: 1 }],
  totals: [{ type: "total", amount: 1000 }],
};

test("a create retried after a 503 and an in-flight 409 keeps its Idempotency-Key; each attempt has its own Request-Id", async () => {
  seen.length = 0;
  scripts.set("POST /s/acme/checkout-sessions", [
    { status: 503, body: { code: "unavailable", content: "try again" } },
    {
      status: 409,
      body: { code: "idempotency_in_flight", content: "wait" },
      headers: { "retry-after": "0" },
    },
    { status: 201, body: checkout },
  ]);
  const created = await client().createCheckout({ line_items: [{ item: { id: "var_1" }, quantity: 1 }] });
  assert.equal(created.id, "chk_1");
  assert.equal(seen.length, 3);
  const keys = new Set(seen.map((s) => s.headers["idempotency-key"]));
  assert.equal(keys.size, 1);
  assert.match(String([...keys][0]), /^[0-9a-f-]{36}$/);
  assert.equal(new Set(seen.map((s) => s.headers["request-id"])).size, 3);
  for (const s of seen) {
    assert.equal(s.headers["x-api-key"], "acs_test");
    assert.equal(s.headers["ucp-agent"], 'profile="http://127.0.0.1:9/.well-known/ucp"');
    assert.equal(s.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(s.body), { line_items: [{ item: { id: "var_1" }, quantity: 1 }] });
  }
});

test("a GET carries no Idempotency-Key; an update goes to PUT …/<id> with the given key", async () => {
  seen.length = 0;
  scripts.set("GET /s/acme/checkout-sessions/chk_1", [{ status: 200, body: checkout }]);
  scripts.set("PUT /s/acme/checkout-sessions/chk_1", [{ status: 200, body: checkout }]);
  scripts.set("GET /s/acme/orders/ord_1", [{ status: 200, body: { id: "ord_1" } }]);
  const c = client();
  await c.getCheckout("chk_1");
  await c.updateCheckout("chk_1", { buyer: { email: "ada@example.com" } }, { idempotencyKey: "mine" });
  assert.equal((await c.getOrder("ord_1")).id, "ord_1");
  assert.deepEqual(
    seen.map((s) => [s.method, s.path, s.headers["idempotency-key"] ?? null]),
    [
      ["GET", "/s/acme/checkout-sessions/chk_1", null],
      ["PUT", "/s/acme/checkout-sessions/chk_1", "mine"],
      ["GET", "/s/acme/orders/ord_1", null],
    ],
  );
});

test("a non-2xx answer throws UcpError with UCP's code, the message's JSONPath and the Request-Id; not retried", async () => {
  seen.length = 0;
  scripts.set("POST /s/acme/checkout-sessions/chk_1/complete", [
    {
      status: 403,
      body: {
        code: "insufficient_permission",
        content: "needs purchase:complete",
        messages: [
          { type: "error", code: "insufficient_permission", content: "needs it", path: "$.payment" },
        ],
      },
      headers: { "request-id": "req-9" },
    },
  ]);
  const error = await client()
    .completeCheckout("chk_1", {})
    .then(
      () => assert.fail("resolved"),
      (e: unknown) => e,
    );
  assert.ok(error instanceof UcpError);
  assert.equal(error.status, 403);
  assert.equal(error.code, "insufficient_permission");
  assert.equal(error.requestId, "req-9");
  assert.equal(error.message, "403 insufficient_permission: needs purchase:complete (at $.payment)");
  assert.equal(seen.length, 1);
});

test("requestSigner signs every request (Signature-Input with the key's kid, Content-Digest on a body)", async () => {
  seen.length = 0;
  scripts.set("POST /s/acme/catalog/search", [{ status: 200, body: { products: [] } }]);
  const signed = createShoppingClient({
    baseUrl: base,
    store: "acme",
    agentProfileUrl: "http://127.0.0.1:9/.well-known/ucp",
    requestSigner: key,
  });
  assert.deepEqual((await signed.searchCatalog({ query: "boots" })).products, []);
  const [request] = seen;
  assert.match(
    String(request?.headers["signature-input"]),
    /^sig1=\("@method" "@authority" "@path" "ucp-agent" "idempotency-key" "content-digest" "content-type"\);created=\d+;keyid="kit-client"$/,
  );
  assert.match(String(request?.headers["content-digest"]), /^sha-256=:/);
});

test("cardCompletion: a selected svc.card instrument with the token and a mandate for this checkout and store", async () => {
  const body = await cardCompletion(checkout, "acme", { token: "pm_card_visa", mandateSigner: key });
  assert.deepEqual(body.payment, {
    instruments: [
      { handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token: "pm_card_visa" } },
    ],
  });
  const header = decodeProtectedHeader(body.ap2?.checkout_mandate ?? "");
  assert.deepEqual([header.kid, header.merchant, header.checkout_id], ["kit-client", "acme", "chk_1"]);
  // without a token (the buyer pays on the hosted page) the instrument carries no credential
  const hosted = await cardCompletion(checkout, "acme", { mandateSigner: key, ttlSeconds: 600 });
  assert.deepEqual(hosted.payment, { instruments: [{ handler_id: "svc.card", selected: true }] });
  const exp = Number(decodeProtectedHeader(hosted.ap2?.checkout_mandate ?? "").exp);
  assert.ok(Math.abs(exp - (Math.floor(Date.now() / 1000) + 600)) <= 2, String(exp));
});
