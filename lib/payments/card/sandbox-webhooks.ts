import "server-only";

import type Stripe from "stripe";

import { getBaseUrl } from "@/lib/config/env";
import { errorText, logger } from "@/lib/core/log";
import type { Store } from "@/lib/generated/prisma/client";

import { SANDBOX_EVENT_TYPES } from "./sandbox-client";

// Webhook endpoints of test-mode stores on the sandbox PSP. When the service serves HTTP
// (instrumentation.ts calls enableSandboxWebhooks), the card adapter registers `{BASE_URL}/s/<slug>/stripe/webhook`
// for a test store through the official SDK (stripe.webhookEndpoints.create, metadata.store = slug) once per
// process per store, before its first Stripe call; an endpoint with that URL already on the account (another
// process, an external sandbox) is reused. Off by default: in-process integration tests never post to a BASE_URL
// nobody listens on (a test may enable it with its own target). Live stores register their endpoint in Stripe's
// dashboard (docs: admin set-stripe-keys), never here.

type State = { baseUrl: string | null; registered: Map<string, Promise<void>> };
const KEY = Symbol.for("agent-commerce-service.sandbox-webhooks");
type Holder = { [KEY]?: State };
const state = (): State => ((globalThis as Holder)[KEY] ??= { baseUrl: null, registered: new Map() });

/** Where a store's sandbox events go: our webhook route under `baseUrl`. */
export const sandboxWebhookUrl = (baseUrl: string, slug: string): string =>
  `${baseUrl.replace(/\/+$/, "")}/s/${encodeURIComponent(slug)}/stripe/webhook`;

/** Turns registration on for this process; `baseUrl` defaults to BASE_URL (the address this server serves). */
export const enableSandboxWebhooks = ({ baseUrl = getBaseUrl() }: { baseUrl?: string } = {}): void => {
  const s = state();
  s.baseUrl = baseUrl;
  s.registered.clear();
};

export const disableSandboxWebhooks = (): void => {
  const s = state();
  s.baseUrl = null;
  s.registered.clear();
};

const register = async (stripe: Stripe, store: Store, url: string): Promise<void> => {
  for await (const endpoint of stripe.webhookEndpoints.list({ limit: 100 })) {
    if (endpoint.url === url) return;
  }
  await stripe.webhookEndpoints.create({
    url,
    enabled_events: [...SANDBOX_EVENT_TYPES],
    metadata: { store: store.slug },
    description: `Agent Commerce Service: ${store.slug}`,
  });
};

/**
 * Registers the sandbox webhook endpoint of a test store once per process (no-op when disabled or for live
 * stores). A failure is logged and retried on the next call: webhooks are one of three paths that finish a
 * payment (the completion itself, the hosted page / a retry, the reconciliation sweep), never the only one.
 */
export const ensureSandboxWebhookEndpoint = async (stripe: Stripe, store: Store): Promise<void> => {
  const s = state();
  if (!s.baseUrl || store.mode !== "test") return;
  const url = sandboxWebhookUrl(s.baseUrl, store.slug);
  let pending = s.registered.get(url);
  if (!pending) {
    pending = register(stripe, store, url).catch((error: unknown) => {
      s.registered.delete(url);
      logger().error(`sandbox webhook endpoint ${url}: ${errorText(error)}`);
    });
    s.registered.set(url, pending);
  }
  await pending;
};
