import assert from "node:assert/strict";
import { createHash, createPublicKey, type JsonWebKey } from "node:crypto";
import { test } from "node:test";

import { createVerifier, httpbis } from "http-message-signatures";
import { parseDictionary } from "structured-headers";

import { contentDigest, requestComponents, signRequest } from "./http-signature.js";
import { generateAgentKey } from "./profile-server.js";

// Requests signed by the kit verify with an independent RFC 9421 verifier (the library's, keyed by the public JWK
// the profile publishes), cover the components UCP names, and carry a Content-Digest of the exact body bytes.

const key = generateAgentKey("kit-sig");
const verify = (request: { method: string; url: string; headers: Headers }) =>
  httpbis.verifyMessage(
    {
      keyLookup: async (params) =>
        params.keyid === key.kid
          ? {
              id: key.kid,
              algs: ["ecdsa-p256-sha256"],
              verify: createVerifier(
                createPublicKey({ key: key.publicJwk as JsonWebKey, format: "jwk" }),
                "ecdsa-p256-sha256",
              ),
            }
          : null,
      tolerance: 60,
    },
    { method: request.method, url: request.url, headers: Object.fromEntries(request.headers.entries()) },
  );

const covered = (headers: Headers) =>
  (parseDictionary(headers.get("signature-input") ?? "").get("sig1")?.[0] as unknown as [string][]).map(
    ([n]) => n,
  );

test("a POST with a body: UCP's components covered, created+keyid only, Content-Digest of the raw bytes, verifies", async () => {
  const body = '{"line_items":[{"item":{"id":"var_1"},"quantity":1}]}';
  const request = {
    method: "POST",
    url: "http://127.0.0.1:3000/s/acme/checkout-sessions",
    headers: new Headers({
      "content-type": "application/json",
      "ucp-agent": 'profile="http://127.0.0.1:9/.well-known/ucp"',
      "idempotency-key": "k-1",
      "request-id": "r-1",
    }),
    body,
  };
  const headers = await signRequest(request, key);
  assert.deepEqual(covered(headers), [
    "@method",
    "@authority",
    "@path",
    "ucp-agent",
    "idempotency-key",
    "content-digest",
    "content-type",
  ]);
  const input = headers.get("signature-input") ?? "";
  assert.match(input, /;created=\d+;keyid="kit-sig"$/);
  assert.doesNotMatch(input, /alg=/);
  assert.equal(
    headers.get("content-digest"),
    `sha-256=:${createHash("sha256").update(body).digest("base64")}:`,
  );
  assert.equal(await verify({ ...request, headers }), true);
  // a header changed after signing (another idempotency key) no longer verifies
  const tampered = new Headers(headers);
  tampered.set("idempotency-key", "k-2");
  assert.equal(await verify({ ...request, headers: tampered }), false);
});

test("a GET with a query covers @query and no body components; an unsupported key type is refused", async () => {
  const request = {
    method: "GET",
    url: "http://127.0.0.1:3000/s/acme/orders/ord_1?x=1",
    headers: new Headers({ "ucp-agent": 'profile="http://a/.well-known/ucp"', "idempotency-key": "k" }),
    body: null,
  };
  assert.deepEqual(requestComponents(request), ["@method", "@authority", "@path", "@query", "ucp-agent"]);
  const headers = await signRequest(request, key);
  assert.equal(headers.has("content-digest"), false);
  assert.equal(await verify({ ...request, headers }), true);
  await assert.rejects(
    signRequest(request, { kid: "rsa", privateJwk: { kty: "RSA" } }),
    /Cannot sign with a RSA\/undefined key/,
  );
});

test("contentDigest hashes bytes, not characters", () => {
  const bytes = new TextEncoder().encode("é");
  assert.equal(contentDigest("é"), contentDigest(bytes));
  assert.equal(contentDigest(""), "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
});
