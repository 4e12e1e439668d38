import "server-only";

import { createPrivateKey, sign, type JsonWebKey } from "node:crypto";

import { signRequest } from "@/lib/httpsig/signature";

// Signs one webhook delivery (UCP order webhooks, CONTRACT.md §10/§13): RFC 9421 with the store's key (published
// in its profile's signing_keys), covering @method, @authority, @path, content-digest, content-type, webhook-id,
// webhook-timestamp, ucp-agent (naming the store profile) and idempotency-key. UCP signs idempotency-key on every
// POST (signatures.md "Request components"); a webhook's Idempotency-Key is its Webhook-Id, so a receiver that
// deduplicates by either sees one event however often it is redelivered. The body, the Webhook-* values and the
// Idempotency-Key are fixed per delivery; only the signature's `created` is fresh on each attempt.

export type WebhookMessage = {
  url: string;
  webhookId: string;
  /** Webhook-Timestamp, unix seconds. */
  timestamp: number;
  body: string;
  storeProfileUrl: string;
};

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

/**
 * The headers of one attempt (Content-Type, Content-Digest, Webhook-*, UCP-Agent, Idempotency-Key, Signature-Input,
 * Signature).
 */
export const signWebhook = async (
  message: WebhookMessage,
  key: { kid: string; privateJwk: JsonWebKey },
  now: Date,
): Promise<Record<string, string>> => {
  const url = new URL(message.url);
  const headers = new Headers({
    "content-type": "application/json",
    "webhook-id": message.webhookId,
    "webhook-timestamp": String(message.timestamp),
    "ucp-agent": `profile="${message.storeProfileUrl}"`,
    "idempotency-key": message.webhookId,
  });
  const components: string[] = [...WEBHOOK_COMPONENTS];
  if (url.search) components.splice(3, 0, "@query"); // after @path, as for requests
  const signed = await signRequest(
    { method: "POST", url: message.url, headers, body: message.body },
    { privateJwk: key.privateJwk, keyid: key.kid, created: now, components },
  );
  return Object.fromEntries(signed.entries());
};

/**
 * The `Request-Signature` of an order webhook at UCP 2026-01-11/2026-01-23 (their OpenAPI `webhooks.orderEvent`
 * and order.md: a detached JWT over the body, `kid` in its header, the key from our `signing_keys`): a JWS with
 * the unencoded payload of RFC 7797 (`b64: false`, so the receiver verifies the body bytes as received) in the
 * detached compact form `<header>..<signature>`. Sent beside the RFC 9421 headers, which an older receiver
 * ignores (docs/ucp-versions.md §3.15).
 */
export const detachedRequestSignature = (
  body: string,
  key: { kid: string; privateJwk: JsonWebKey },
): string => {
  const header = Buffer.from(
    JSON.stringify({ alg: "ES256", kid: key.kid, b64: false, crit: ["b64"] }),
  ).toString("base64url");
  const signature = sign("sha256", Buffer.concat([Buffer.from(`${header}.`), Buffer.from(body)]), {
    key: createPrivateKey({ key: key.privateJwk, format: "jwk" }),
    dsaEncoding: "ieee-p1363",
  });
  return `${header}..${signature.toString("base64url")}`;
};
