import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import type { JWK } from "jose";

import { verifyWebhook, type WebhookRequest } from "./webhook.js";

// The kit's webhook check against the service's published signature vectors (e2e/vectors/acs-signatures.json,
// docs/webhooks.md): a delivery signed by the store verifies; changed bytes, an unknown key, a stale signature or
// a signature that leaves out the delivery's identity do not.

const vectors = JSON.parse(
  readFileSync(new URL("../../../e2e/vectors/acs-signatures.json", import.meta.url), "utf8"),
) as { created: string; keys: { store: { publicJwk: JWK } }; webhook: WebhookRequest & { body: string } };
const { webhook, keys } = vectors;
const now = new Date(vectors.created);
const findKey = (kid: string) => (kid === keys.store.publicJwk.kid ? keys.store.publicJwk : null);

test("the store-signed vector verifies; its Webhook-Id and keyid come back", async () => {
  const result = await verifyWebhook(webhook, findKey, { now });
  assert.deepEqual(result, {
    ok: true,
    webhookId: webhook.headers["webhook-id"],
    keyid: keys.store.publicJwk.kid,
  });
});

test("changed bytes, an unknown key, a stale signature, another URL are refused with the reason", async () => {
  const refused = async (request: WebhookRequest, options = { now }) => {
    const result = await verifyWebhook(request, findKey, options);
    assert.equal(result.ok, false);
    return result.ok ? "" : result.reason;
  };
  assert.match(await refused({ ...webhook, body: webhook.body.replace("USD", "EUR") }), /Content-Digest/);
  assert.deepEqual(await verifyWebhook(webhook, () => null, { now }), {
    ok: false,
    reason: "unknown key acs-example-store-key: refetch the store profile's signing_keys",
  });
  assert.match(
    await refused(webhook, { now: new Date(now.getTime() + 3_600_000) }),
    /^signed 3600 s before now: stale or replayed$/,
  );
  assert.match(
    await refused({ ...webhook, url: "https://elsewhere.example/webhooks/orders" }),
    /does not verify/,
  );
});

test("a signature that does not cover the delivery's identity is refused before any key is looked up", async () => {
  const input = webhook.headers["signature-input"]!.replace(' "webhook-id"', "");
  const result = await verifyWebhook(
    { ...webhook, headers: { ...webhook.headers, "signature-input": input } },
    () => {
      throw new Error("no key lookup expected");
    },
  );
  assert.deepEqual(result, { ok: false, reason: "the signature does not cover webhook-id" });
});
