// Verifying an Agent Commerce Service order webhook, self-contained (Node ≥ 20, `npm i http-message-signatures
// structured-headers`). Usage: node verify-webhook.mjs <vectors.json>   — checks the `webhook` vector of
// e2e/vectors/acs-signatures.json; in a real receiver, call verifyWebhook() from your POST handler with the raw
// body bytes BEFORE parsing or acting on them.
import { createHash, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";

import { createVerifier, httpbis } from "http-message-signatures";
import { parseDictionary } from "structured-headers";

const REQUIRED = [
  "@method",
  "@authority",
  "@path",
  "content-digest",
  "content-type",
  "webhook-id",
  "webhook-timestamp",
  "ucp-agent",
  "idempotency-key",
];

/**
 * @param {{ method: string, url: string, headers: Record<string,string>, body: Buffer }} request  what you received
 * @param {(kid: string) => object | null} findKey  the store's published JWK for a kid (cache its profile's signing_keys)
 * @param {Date} now
 * @returns {Promise<{ ok: true, webhookId: string } | { ok: false, reason: string }>}
 */
export async function verifyWebhook(request, findKey, now = new Date()) {
  const h = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  // 1. The digest: sha-256 of the exact bytes received.
  const digest = parseDictionary(h["content-digest"] ?? "").get("sha-256");
  const expected = createHash("sha256").update(request.body).digest();
  if (!digest || !Buffer.from(digest[0]).equals(expected))
    return { ok: false, reason: "content-digest mismatch" };
  // 2. Exactly one signature, covering what we rely on.
  const inputs = parseDictionary(h["signature-input"] ?? "");
  if (inputs.size !== 1) return { ok: false, reason: "expected exactly one signature" };
  const [[, [items, params]]] = inputs;
  const covered = items.map(([name]) => name);
  const missing = REQUIRED.filter((c) => !covered.includes(c));
  if (missing.length) return { ok: false, reason: `signature does not cover ${missing.join(", ")}` };
  const kid = params.get("keyid");
  if (typeof kid !== "string") return { ok: false, reason: "keyid must be a quoted string" };
  const jwk = findKey(kid);
  if (!jwk) return { ok: false, reason: `unknown key ${kid} (refresh the store profile's signing_keys)` };
  // 3. The signature itself (ES256: ecdsa-p256-sha256, raw r||s).
  const verify = createVerifier(createPublicKey({ key: jwk, format: "jwk" }), "ecdsa-p256-sha256");
  const ok = await httpbis.verifyMessage(
    {
      keyLookup: async () => ({ id: kid, algs: ["ecdsa-p256-sha256"], verify }),
      notAfter: Math.floor(now.getTime() / 1000),
      tolerance: 60,
    },
    { method: request.method, url: request.url, headers: h },
  );
  if (ok !== true) return { ok: false, reason: "bad signature" };
  // 4. Then: drop duplicates by Webhook-Id, and check the order belongs to this store before acting.
  return { ok: true, webhookId: h["webhook-id"] };
}

if (process.argv[2]) {
  const vectors = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const { webhook, keys, created } = vectors;
  const findKey = (kid) => (kid === keys.store.publicJwk.kid ? keys.store.publicJwk : null);
  const received = { ...webhook, body: Buffer.from(webhook.body, "utf8") };
  const good = await verifyWebhook(received, findKey, new Date(created));
  const tampered = await verifyWebhook(
    { ...received, body: Buffer.from(webhook.body.replace("USD", "EUR")) },
    findKey,
    new Date(created),
  );
  console.log(JSON.stringify({ good, tampered }));
  process.exit(good.ok && !tampered.ok ? 0 : 1);
}
