import { cardCompletion, type Checkout } from "@agent-commerce/agent-kit";
import type { JWK } from "jose";

// The body an agent sends to complete a checkout on the card rail, built by the agent kit as agents build it: one
// selected svc.card instrument (with a payment-method token, or none so the buyer pays on the hosted page) and an
// AP2 checkout mandate over the checkout's terms, signed with the agent's key (the one its profile publishes).
// Light on imports, so the crash tests (scripts/) and Playwright specs use it as well as the in-process tests.

export type MandateSigner = { privateJwk: JWK; kid: string };

export const cardCompletionBody = (
  checkout: unknown,
  storeSlug: string,
  signer: MandateSigner,
  token?: string,
) =>
  cardCompletion(checkout as Checkout, storeSlug, {
    mandateSigner: signer,
    ttlSeconds: 600,
    ...(token ? { token } : {}),
  });

/**
 * An agent profile that completes card checkouts: `profile` (e.g. the demo agent's) declaring the AP2 mandate
 * capability the stores require for card completion (UCP negotiation: without it completion is refused) and
 * publishing the mandate key in `signing_keys`.
 */
export const withMandateKey = (profile: object, publicJwk: object): object => {
  const ucp = (profile as { ucp?: { version?: string; capabilities?: Record<string, unknown> } }).ucp ?? {};
  return {
    ...profile,
    ucp: {
      ...ucp,
      capabilities: {
        ...ucp.capabilities,
        "dev.ucp.shopping.ap2_mandate": [{ version: ucp.version ?? "2026-04-08" }],
      },
    },
    signing_keys: [publicJwk],
  };
};

/** An agent profile whose order capability sends order webhooks to `webhookUrl` (UCP order `config.webhook_url`). */
export const withOrderWebhook = (profile: object, webhookUrl: string): object => {
  const ucp = (profile as { ucp?: { capabilities?: Record<string, { config?: object }[]> } }).ucp ?? {};
  const order = ucp.capabilities?.["dev.ucp.shopping.order"] ?? [];
  return {
    ...profile,
    ucp: {
      ...ucp,
      capabilities: {
        ...ucp.capabilities,
        "dev.ucp.shopping.order": order.map((entry) => ({
          ...entry,
          config: { ...entry.config, webhook_url: webhookUrl },
        })),
      },
    },
  };
};
