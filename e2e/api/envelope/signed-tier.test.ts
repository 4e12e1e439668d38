import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID, type JsonWebKey } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";
import { signRequest } from "@/lib/httpsig/signature";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, readJson, TEST_BASE_URL } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The signed trust tier (issue #7 part 6; seed §5 rule 3): requests signed per RFC 9421 by a key from the agent
// profile named in UCP-Agent reach the signed tier on REST and MCP; forged, stale, replayed or tampered ones are
// refused with their own code and never silently downgraded.

const profiles = await profileServer();
const SIGNED_PROFILE = profiles.url("signed");
const { agentKey } = profiles;

type Body = { id?: string; messages?: { code: string }[]; error?: { code: number; data: { code: string } } };

let store: Store;
let variantId: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 10 }] })).variants[0]!.id;
});
after(closeTestDatabase);

type SignedCall = {
  method?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  profile?: string;
  privateJwk?: JsonWebKey;
  keyid?: string;
  /** null: signed without `created` (RFC 9421 and UCP make it optional). */
  created?: Date | null;
};

/** Builds a request the way a signing agent would: envelope headers, then the RFC 9421 signature over them. */
const signedRequest = async ({
  method = "POST",
  path,
  body,
  headers = {},
  profile = SIGNED_PROFILE,
  privateJwk = agentKey.privateJwk,
  keyid = agentKey.kid,
  created = new Date(),
}: SignedCall) => {
  const text = body === undefined ? "" : JSON.stringify(body);
  const base = new Headers({
    "request-id": randomUUID(),
    "ucp-agent": `profile="${profile}"`,
    ...(text ? { "content-type": "application/json" } : {}),
    ...headers,
  });
  const signed = await signRequest(
    { method, url: `${TEST_BASE_URL}${path}`, headers: base, body: text },
    { privateJwk, keyid, ...(created ? { created } : {}) },
  );
  return { method, path, headers: Object.fromEntries(signed.entries()), rawBody: text || undefined };
};

const send = async (request: Awaited<ReturnType<typeof signedRequest>>) =>
  readJson<Body>(
    await callApp(request.method, request.path, { headers: request.headers, rawBody: request.rawBody }),
  );

const createCartBody = () => ({ line_items: [{ item: { id: variantId }, quantity: 1 }] });
const cartsPath = () => `/s/${store.slug}/carts`;

describe("signed tier on REST", () => {
  test("without any credential, an unsigned cart create is refused (baseline: anonymous tier)", async () => {
    const res = await readJson<Body>(
      await callApp("POST", cartsPath(), {
        headers: {
          "request-id": randomUUID(),
          "ucp-agent": `profile="${SIGNED_PROFILE}"`,
          "idempotency-key": randomUUID(),
        },
        body: createCartBody(),
      }),
    );
    assert.equal(res.status, 403);
    assert.equal(res.body.messages?.[0]?.code, "insufficient_trust");
  });

  test("a valid signature alone reaches the signed tier: the agent creates and reads its own cart", async () => {
    const created = await send(
      await signedRequest({
        path: cartsPath(),
        body: createCartBody(),
        headers: { "idempotency-key": randomUUID() },
      }),
    );
    assert.equal(created.status, 201, created.text);
    const read = await send(
      await signedRequest({ method: "GET", path: `${cartsPath()}/${created.body.id}` }),
    );
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.id, created.body.id);

    // The agent is its own principal: a platform key does not see the agent's cart.
    const key = (await seedPlatformKey()).key;
    const other = await readJson<Body>(
      await callApp("GET", `${cartsPath()}/${created.body.id}`, {
        headers: { "request-id": randomUUID(), "ucp-agent": `profile="${SIGNED_PROFILE}"`, "x-api-key": key },
      }),
    );
    assert.equal(other.body.messages?.[0]?.code, "not_found");
  });

  test("signed with a platform key: the key's principal at the signed tier (its cart stays its own)", async () => {
    const key = (await seedPlatformKey()).key;
    const created = await send(
      await signedRequest({
        path: cartsPath(),
        body: createCartBody(),
        headers: { "idempotency-key": randomUUID(), "x-api-key": key },
      }),
    );
    assert.equal(created.status, 201, created.text);
    const unsignedRead = await readJson<Body>(
      await callApp("GET", `${cartsPath()}/${created.body.id}`, {
        headers: { "request-id": randomUUID(), "ucp-agent": `profile="${SIGNED_PROFILE}"`, "x-api-key": key },
      }),
    );
    assert.equal(unsignedRead.body.id, created.body.id);
  });

  test("the same signed request twice → 401 signature_replayed", async () => {
    const request = await signedRequest({ method: "GET", path: `/s/${store.slug}/carts/cart_none` });
    const first = await send(request);
    assert.equal(first.status, 200);
    const second = await send(request);
    assert.equal(second.status, 401);
    assert.equal(second.body.messages?.[0]?.code, "signature_replayed");
  });

  test("a body changed after signing → 400 digest_mismatch", async () => {
    const request = await signedRequest({
      path: cartsPath(),
      body: createCartBody(),
      headers: { "idempotency-key": randomUUID() },
    });
    const res = await send({ ...request, rawBody: request.rawBody!.replace('"quantity":1', '"quantity":9') });
    assert.equal(res.status, 400);
    assert.equal(res.body.messages?.[0]?.code, "digest_mismatch");
  });

  test("a key the profile does not publish → 401 key_not_found", async () => {
    const res = await send(
      await signedRequest({ method: "GET", path: `${cartsPath()}/cart_none`, profile: profiles.url("ok") }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.messages?.[0]?.code, "key_not_found");
  });

  test("signed by another key under the published kid → 401 signature_invalid, not downgraded", async () => {
    const forger = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
    const res = await send(
      await signedRequest({
        path: cartsPath(),
        body: createCartBody(),
        headers: { "idempotency-key": randomUUID() },
        privateJwk: forger,
      }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.messages?.[0]?.code, "signature_invalid");
  });

  test("a stale signature (created 10 minutes ago) → 401 signature_invalid", async () => {
    const res = await send(
      await signedRequest({
        method: "GET",
        path: `${cartsPath()}/cart_none`,
        created: new Date(Date.now() - 600_000),
      }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.messages?.[0]?.code, "signature_invalid");
  });

  test("signed without created (optional per RFC 9421 and UCP): accepted, and still only once", async () => {
    const request = await signedRequest({
      path: cartsPath(),
      body: createCartBody(),
      headers: { "idempotency-key": randomUUID() },
      created: null,
    });
    assert.doesNotMatch(request.headers["signature-input"] ?? "", /created/);
    const res = await send(request);
    assert.equal(res.status, 201, res.text);
    const again = await send(request);
    assert.equal(again.status, 401);
    assert.equal(again.body.messages?.[0]?.code, "signature_replayed");
  });

  test("an unknown keyid is key_not_found before any other check (no created, or a stale one)", async () => {
    for (const created of [null, new Date(Date.now() - 600_000)]) {
      const res = await send(
        await signedRequest({ method: "GET", path: `${cartsPath()}/cart_none`, keyid: "nobody", created }),
      );
      assert.equal(res.status, 401);
      assert.equal(res.body.messages?.[0]?.code, "key_not_found", res.text);
    }
  });

  test("a signed request on the global catalog without UCP-Agent → 401 key_not_found", async () => {
    const request = await signedRequest({ path: "/catalog/product", body: { id: "prod_none" } });
    delete request.headers["ucp-agent"];
    const res = await send(request);
    assert.equal(res.status, 401);
    assert.equal(res.body.messages?.[0]?.code, "key_not_found");
  });
});

describe("signed tier on MCP", () => {
  const rpc = (name: string, args: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: { meta: { "ucp-agent": { profile: SIGNED_PROFILE } }, ...args } },
  });
  const mcpPath = () => `/s/${store.slug}/mcp`;
  const accept = { accept: "application/json, text/event-stream" };

  test("a signed JSON-RPC POST reaches the signed tier (create_cart without a key)", async () => {
    const body = rpc("create_cart", { cart: createCartBody() });
    body.params.arguments.meta = { ...body.params.arguments.meta, "idempotency-key": randomUUID() } as never;
    const res = await send(await signedRequest({ path: mcpPath(), body, headers: accept }));
    assert.equal(res.status, 200, res.text);
    const result = (res.body as { result?: { structuredContent?: { id?: string } } }).result;
    assert.match(result?.structuredContent?.id ?? "", /^cart_/);
  });

  test("unsigned, the same call is refused for trust", async () => {
    const body = rpc("create_cart", { cart: createCartBody() });
    body.params.arguments.meta = { ...body.params.arguments.meta, "idempotency-key": randomUUID() } as never;
    const res = await readJson<Body>(
      await callApp("POST", mcpPath(), {
        headers: { "request-id": randomUUID(), "ucp-agent": `profile="${SIGNED_PROFILE}"`, ...accept },
        body,
      }),
    );
    assert.equal(res.body.error?.data.code, "insufficient_trust");
  });

  test("a forged signature → HTTP 401 and a JSON-RPC error signature_invalid", async () => {
    const forger = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
    const res = await send(
      await signedRequest({
        path: mcpPath(),
        body: rpc("get_cart", { id: "cart_none" }),
        headers: accept,
        privateJwk: forger,
      }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.error?.code, -32000);
    assert.equal(res.body.error?.data.code, "signature_invalid");
  });
});
