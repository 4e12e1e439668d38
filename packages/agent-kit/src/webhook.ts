import { createHash, createPublicKey, type JsonWebKey } from "node:crypto";

import { createVerifier, httpbis } from "http-message-signatures";
import type { JWK } from "jose";
import { parseDictionary } from "structured-headers";

// Checking that an order webhook comes from the store (docs/webhooks.md): the store signs each delivery per RFC
// 9421 with a key from its profile's signing_keys (`{base}/s/<store>/.well-known/ucp`), over the delivery's
// identity (Webhook-Id, Webhook-Timestamp, Idempotency-Key), its UCP-Agent and a Content-Digest of the exact body
// bytes. Verify before parsing or acting on the body; then drop duplicates by Webhook-Id.

/** What a delivery's signature must cover for its body and identity to be trusted. */
export const WEBHOOK_COMPONENTS = [
  "@method",
  "@authority",
  "@path",
  "content-digest",
  "content-type",
  "webhook-id",
  "webhook-timestamp",
  "ucp-agent",
  "idempotency-key",
] as const;

export type WebhookRequest = {
  method: string;
  /** The URL the store posted to (the webhook URL the agent published). */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The raw body bytes as received. */
  body: Uint8Array | string;
};

export type WebhookVerification =
  { ok: true; webhookId: string; keyid: string } | { ok: false; reason: string };

const bytes = (body: Uint8Array | string) => (typeof body === "string" ? Buffer.from(body, "utf8") : body);

/**
 * Verifies one delivery against the store's published keys: the Content-Digest of the raw bytes, exactly one
 * signature covering WEBHOOK_COMPONENTS by a key `findKey` knows, created within `toleranceSeconds` of `now`.
 */
export const verifyWebhook = async (
  request: WebhookRequest,
  findKey: (kid: string) => JWK | null | undefined,
  { now = new Date(), toleranceSeconds = 300 }: { now?: Date; toleranceSeconds?: number } = {},
): Promise<WebhookVerification> => {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  try {
    const digest = parseDictionary(headers["content-digest"] ?? "").get("sha-256")?.[0];
    const expected = createHash("sha256").update(bytes(request.body)).digest();
    if (!(digest instanceof ArrayBuffer) || !Buffer.from(digest).equals(expected)) {
      return { ok: false, reason: "Content-Digest does not match the body bytes" };
    }
    const inputs = parseDictionary(headers["signature-input"] ?? "");
    if (inputs.size !== 1) return { ok: false, reason: "expected exactly one signature" };
    const member = [...inputs.values()][0];
    if (!member || !Array.isArray(member[0]))
      return { ok: false, reason: "the signature names no components" };
    const [items, params] = member as [[unknown, unknown][], Map<string, unknown>];
    const covered = items.map(([name]) => String(name));
    const missing = WEBHOOK_COMPONENTS.filter((c) => !covered.includes(c));
    if (missing.length > 0)
      return { ok: false, reason: `the signature does not cover ${missing.join(", ")}` };
    const created = params.get("created");
    const age = Math.floor(now.getTime() / 1000) - (typeof created === "number" ? created : Number.NaN);
    if (!(Math.abs(age) <= toleranceSeconds)) {
      return {
        ok: false,
        reason: Number.isNaN(age)
          ? "signed without created"
          : `signed ${age} s before now: stale or replayed`,
      };
    }
    const kid = params.get("keyid");
    if (typeof kid !== "string") return { ok: false, reason: "keyid must be a quoted string" };
    const jwk = findKey(kid);
    if (!jwk) return { ok: false, reason: `unknown key ${kid}: refetch the store profile's signing_keys` };
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: async () => ({
          id: kid,
          algs: ["ecdsa-p256-sha256"],
          verify: createVerifier(
            createPublicKey({ key: jwk as JsonWebKey, format: "jwk" }),
            "ecdsa-p256-sha256",
          ),
        }),
      },
      { method: request.method, url: request.url, headers },
    );
    if (verified !== true) return { ok: false, reason: "the signature does not verify" };
    return { ok: true, webhookId: headers["webhook-id"] ?? "", keyid: kid };
  } catch (error) {
    return { ok: false, reason: `malformed signature headers: ${(error as Error).message}` };
  }
};

/** The `signing_keys` a UCP profile publishes (a store's: `{base}/s/<store>/.well-known/ucp`). */
export const fetchSigningKeys = async (profileUrl: string): Promise<JWK[]> => {
  const response = await fetch(profileUrl, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`${profileUrl} answered ${response.status}`);
  const profile = (await response.json()) as { signing_keys?: JWK[] };
  return Array.isArray(profile.signing_keys) ? profile.signing_keys : [];
};
