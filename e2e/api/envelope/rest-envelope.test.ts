import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { AGENT_PROFILE, rest, TEST_BASE_URL, type JsonResponse } from "../../helpers/app-client";
import { assertTransportError } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// seed §4 "Request-envelope rules" and §7 on the per-store REST surface, plus the bad-input cases of issue #2.

type ErrorEnvelope = {
  ucp: { version: string; status: string };
  messages: { code: string; content: string; severity: string }[];
};

const assertError = (res: JsonResponse<unknown>, status: number, code: string) => {
  assert.equal(res.status, status, `status for ${code}: ${res.text}`);
  assertTransportError(res.body);
  const body = res.body as ErrorEnvelope;
  assert.equal(body.ucp.status, "error");
  assert.equal(body.messages[0]?.code, code);
  assert.ok(body.messages[0]?.content.length, "a readable message");
};

let store: Store;
let variantId: string;
let apiKey: string;
const cartCount = async () => (await getDb()).cart.count({ where: { storeId: store.id } });
const cartBody = () => ({ line_items: [{ item: { id: variantId }, quantity: 1 }] });
const createCart = (headers: Record<string, string>, body: unknown = cartBody()) =>
  rest("POST", `/s/${store.slug}/carts`, {
    headers: { "x-api-key": apiKey, "idempotency-key": crypto.randomUUID(), ...headers },
    body,
  });

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  const product = await seedProduct(store);
  variantId = product.variants[0]!.id;
  apiKey = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

describe("Request-Id", () => {
  test("POST /s/:slug/carts without Request-Id → 400 missing_request_id; nothing stored", async () => {
    const before = await cartCount();
    assertError(await createCart({ "request-id": "" }), 400, "missing_request_id");
    assert.equal(await cartCount(), before);
  });

  test("echoed on success and on errors", async () => {
    const ok = await createCart({ "request-id": "req-ok-1" });
    assert.equal(ok.status, 201);
    assert.equal(ok.headers.get("request-id"), "req-ok-1");
    const bad = await createCart({ "request-id": "req-bad-1", "ucp-agent": "" });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get("request-id"), "req-bad-1");
  });

  test("an over-long Request-Id is refused (invalid_request), not echoed", async () => {
    const res = await createCart({ "request-id": "x".repeat(500) });
    assertError(res, 400, "invalid_request");
    assert.equal(res.headers.get("request-id"), null);
  });
});

describe("UCP-Agent", () => {
  test("missing → 400 missing_ucp_agent", async () => {
    assertError(await createCart({ "ucp-agent": "" }), 400, "missing_ucp_agent");
  });

  test("not an RFC 8941 dictionary → 400 invalid_ucp_agent", async () => {
    for (const value of ['profile="unterminated', "profile=", "(a b)", "profile=?1;;"]) {
      assertError(await createCart({ "ucp-agent": value }), 400, "invalid_ucp_agent");
    }
  });

  test("no profile directive, or an unquoted token → 400 invalid_ucp_agent", async () => {
    assertError(await createCart({ "ucp-agent": 'version="2026-04-08"' }), 400, "invalid_ucp_agent");
    assertError(await createCart({ "ucp-agent": "profile=agent" }), 400, "invalid_ucp_agent");
  });

  test("a profile that is not an absolute https URL → 400 invalid_profile_url", async () => {
    for (const url of [
      "not a url",
      "ftp://agent.example/p",
      "http://agent.example/.well-known/ucp",
      "/relative",
    ]) {
      assertError(await createCart({ "ucp-agent": `profile="${url}"` }), 400, "invalid_profile_url");
    }
  });

  test("http on a loopback host is accepted (local agents under development)", async () => {
    assert.match(AGENT_PROFILE, /^http:\/\/127\.0\.0\.1:/);
    const res = await createCart({ "ucp-agent": `profile="${AGENT_PROFILE}"` });
    assert.equal(res.status, 201, res.text);
  });

  test("version negotiation: 2026-04-08 is served and echoed; an unknown version → 422 version_unsupported", async () => {
    const ok = await createCart({ "ucp-agent": `profile="${AGENT_PROFILE}", version="2026-04-08"` });
    assert.equal(ok.status, 201);
    assert.equal((ok.body as { ucp: { version: string } }).ucp.version, "2026-04-08");
    const seedSpelling = await createCart({
      "ucp-agent": `profile="${AGENT_PROFILE}", ucp-version="2026-04-08"`,
    });
    assert.equal(seedSpelling.status, 201);
    const before = await cartCount();
    assertError(
      await createCart({ "ucp-agent": 'profile="https://a.example/p", version="2099-01-01"' }),
      422,
      "version_unsupported",
    );
    assert.equal(await cartCount(), before);
  });
});

describe("Idempotency-Key on state-changing REST calls", () => {
  test("POST /s/:slug/carts without it → 400 missing_idempotency_key; nothing stored", async () => {
    const before = await cartCount();
    assertError(await createCart({ "idempotency-key": "" }), 400, "missing_idempotency_key");
    assert.equal(await cartCount(), before);
  });

  test("PUT and cancel need it too; GET does not", async () => {
    const created = await createCart({});
    const id = (created.body as { id: string }).id;
    const headers = { "x-api-key": apiKey };
    assertError(
      await rest("PUT", `/s/${store.slug}/carts/${id}`, { headers, body: cartBody() }),
      400,
      "missing_idempotency_key",
    );
    assertError(
      await rest("POST", `/s/${store.slug}/carts/${id}/cancel`, { headers }),
      400,
      "missing_idempotency_key",
    );
    const read = await rest("GET", `/s/${store.slug}/carts/${id}`, { headers });
    assert.equal(read.status, 200, read.text);
  });
});

describe("credentials and trust tiers", () => {
  test("unknown platform key → 401 invalid_api_key", async () => {
    assertError(
      await createCart({ "x-api-key": "acs_AAAAAAAAAAAA_" + "b".repeat(43) }),
      401,
      "invalid_api_key",
    );
    assertError(await createCart({ "x-api-key": "garbage" }), 401, "invalid_api_key");
  });

  test("revoked key → 401 invalid_api_key", async () => {
    const { id, key } = await seedPlatformKey();
    assert.equal((await createCart({ "x-api-key": key })).status, 201);
    await (await getDb()).platformApiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    assertError(await createCart({ "x-api-key": key }), 401, "invalid_api_key");
  });

  test("an invalid bearer alone → 401 invalid_token with WWW-Authenticate", async () => {
    const res = await rest("POST", `/s/${store.slug}/carts`, {
      headers: { authorization: "Bearer not-a-token", "idempotency-key": crypto.randomUUID() },
      body: cartBody(),
    });
    assertError(res, 401, "invalid_token");
    // seed §5 rule 2, plus RFC 9728 resource_metadata
    assert.equal(
      res.headers.get("www-authenticate"),
      `Bearer error="invalid_token", realm="${TEST_BASE_URL}", resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource"`,
    );
  });

  test("seed §5 rule 1: a key wins over a bearer — an invalid bearer beside a valid key is not even read", async () => {
    const res = await createCart({ authorization: "Bearer not-a-token" });
    assert.equal(res.status, 201, res.text);
  });

  test("carts need the token tier: anonymous → 403 insufficient_trust", async () => {
    const res = await rest("POST", `/s/${store.slug}/carts`, {
      headers: { "idempotency-key": crypto.randomUUID() },
      body: cartBody(),
    });
    assertError(res, 403, "insufficient_trust");
  });
});

describe("bad input never 500s and changes nothing", () => {
  test("malformed JSON → 400 malformed_json", async () => {
    const before = await cartCount();
    const res = await rest("POST", `/s/${store.slug}/carts`, {
      headers: {
        "x-api-key": apiKey,
        "idempotency-key": crypto.randomUUID(),
        "content-type": "application/json",
      },
      rawBody: '{"line_items": [',
    });
    assertError(res, 400, "malformed_json");
    assert.equal(await cartCount(), before);
  });

  test("wrong content type → 415 unsupported_media_type", async () => {
    const res = await rest("POST", `/s/${store.slug}/carts`, {
      headers: { "x-api-key": apiKey, "idempotency-key": crypto.randomUUID(), "content-type": "text/plain" },
      rawBody: JSON.stringify(cartBody()),
    });
    assertError(res, 415, "unsupported_media_type");
  });

  test("a body over 1 MB → 413 payload_too_large", async () => {
    const res = await rest("POST", `/s/${store.slug}/carts`, {
      headers: {
        "x-api-key": apiKey,
        "idempotency-key": crypto.randomUUID(),
        "content-type": "application/json",
      },
      rawBody: JSON.stringify({ ...cartBody(), pad: "x".repeat(1024 * 1024) }),
    });
    assertError(res, 413, "payload_too_large");
  });

  test("a schema violation → 400 invalid_request with a JSONPath", async () => {
    const res = await createCart({}, { line_items: [{ item: { id: variantId }, quantity: 0 }] });
    assertError(res, 400, "invalid_request");
    assert.equal(
      (res.body as { messages: { path?: string }[] }).messages[0]?.path,
      "$.line_items[0].quantity",
    );
    assertError(await createCart({}, [1, 2, 3]), 400, "invalid_request");
  });

  test("unknown store slug → 404 store_not_found", async () => {
    const res = await rest("POST", "/s/no-such-store/carts", {
      headers: { "x-api-key": apiKey, "idempotency-key": crypto.randomUUID() },
      body: cartBody(),
    });
    assertError(res, 404, "store_not_found");
  });

  test("unknown routes → 404 route_not_found; the wrong checkout base path /checkouts is 404", async () => {
    assertError(await rest("POST", `/s/${store.slug}/checkouts`, { body: {} }), 404, "route_not_found");
    assertError(await rest("GET", "/no/such/path"), 404, "route_not_found");
    assertError(await rest("GET", "/s/no-such-store/anything"), 404, "store_not_found");
  });

  test("a method a path does not serve → 405 method_not_allowed with Allow, in the envelope", async () => {
    const res = await rest("GET", `/s/${store.slug}/carts`);
    assertError(res, 405, "method_not_allowed");
    assert.equal(res.headers.get("allow"), "POST");
    const patch = await rest("PATCH", `/s/${store.slug}/carts/cart_x`, { body: {} });
    assertError(patch, 405, "method_not_allowed");
    assert.equal(patch.headers.get("allow"), "GET, PUT");
    assertError(await rest("POST", "/.well-known/ucp", { body: {} }), 405, "method_not_allowed");
  });

  test("under an unknown store the store is reported before the method", async () => {
    assertError(await rest("GET", "/s/no-such-store/carts"), 404, "store_not_found");
    assertError(await rest("DELETE", "/s/no-such-store/.well-known/ucp"), 404, "store_not_found");
  });
});
