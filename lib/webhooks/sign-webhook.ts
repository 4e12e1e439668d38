import "server-only";

import type { JsonWebKey } from "node:crypto";

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
