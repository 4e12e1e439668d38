import "server-only";

import { LRUCache } from "lru-cache";
import Stripe from "stripe";

import { getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import type { ChargeOutcome, ChargeRequest, PaymentRail, RailCredential } from "../rail";
import { SANDBOX_SECRET_KEY, sandboxEndpoint } from "./sandbox-client";
import { ensureSandboxWebhookEndpoint } from "./sandbox-webhooks";
import { stripeAccountOf } from "./stripe-account";

// The card rail on the official Stripe SDK (DECISIONS.md A: stripe@23.1.0). A store's account (stripe-account.ts)
// decides where calls go: Stripe with the store's own keys (live, or Stripe's test mode with test keys), or the
// sandbox PSP through the SDK's host/port/protocol options — the same adapter code either way. One PaymentIntent
// per attempt, created and confirmed in one call with the payment-method token, for the live re-priced total,
// with our idempotency key forwarded.

/**
 * SDK clients by what configures them (the key and the options: endpoint, timeout, retries). A client holds no
 * per-call state, and building one instantiates every resource of the API (~0.15 ms of CPU and a few hundred
 * objects per payment call, measured), so each configuration gets one. A rotated key is another configuration; the
 * least recently used go past the bound.
 */
const clients = new LRUCache<string, Stripe>({ max: 256 });

const clientOf = (secretKey: string, config: Stripe.StripeConfig): Stripe => {
  const id = JSON.stringify([secretKey, config]);
  const known = clients.get(id);
  if (known) return known;
  const client = new Stripe(secretKey, config);
  clients.set(id, client);
  return client;
};

export const clientFor = async (store: Store): Promise<Stripe> => {
  const account = stripeAccountOf(store);
  if (account.kind === "stripe") {
    if (!account.secretKey) {
      throw new AppError(
        "payment_provider_error",
        `Store ${store.slug} has no Stripe credentials configured`,
      );
    }
    // STRIPE_API_URL: api.stripe.com unless the operator points calls at a Stripe-compatible test server
    const api = new URL(getEnv().STRIPE_API_URL);
    const protocol = api.protocol === "http:" ? "http" : "https";
    return clientOf(account.secretKey, {
      host: api.hostname,
      port: Number(api.port || (protocol === "https" ? 443 : 80)),
      protocol,
      maxNetworkRetries: 2,
      timeout: 20_000,
    });
  }
  const { host, port, protocol } = await sandboxEndpoint();
  const sandbox = clientOf(SANDBOX_SECRET_KEY, {
    host,
    port,
    protocol,
    maxNetworkRetries: 2,
    timeout: 10_000,
  });
  // the store's webhook endpoint on the sandbox, once per process, when this service serves HTTP
  await ensureSandboxWebhookEndpoint(sandbox, store);
  return sandbox;
};

/** Stripe returns the payment method's card details (brand, last four) only when asked to expand it. */
const EXPAND = ["payment_method"];

export const outcomeOf = (pi: Stripe.PaymentIntent): ChargeOutcome => {
  switch (pi.status) {
    case "succeeded": {
      // the card's brand and last four for the receipt, when the request expanded payment_method
      const card = typeof pi.payment_method === "object" ? pi.payment_method?.card : undefined;
      return card
        ? {
            kind: "succeeded",
            paymentRef: pi.id,
            method: { kind: "card", brand: card.brand, last4: card.last4 },
          }
        : { kind: "succeeded", paymentRef: pi.id };
    }
    case "requires_action":
    case "processing":
      return { kind: "requires_action", paymentRef: pi.id };
    case "requires_payment_method":
      return pi.last_payment_error
        ? { kind: "declined", paymentRef: pi.id, reason: pi.last_payment_error.message ?? "declined" }
        : { kind: "requires_payment_method", paymentRef: pi.id };
    default:
      return { kind: "requires_payment_method", paymentRef: pi.id };
  }
};

export const providerError = (error: unknown): AppError => {
  const message = error instanceof Error ? error.message : String(error);
  return new AppError("payment_provider_error", `The payment provider failed: ${message}`);
};

const cardToken = (credential: RailCredential): string => {
  if (credential.type !== "card_token") {
    throw new AppError("invalid_request", "The card rail settles with a card token", { path: "$.payment" });
  }
  return credential.token;
};

const charge = async (request: ChargeRequest): Promise<ChargeOutcome> => {
  const stripe = await clientFor(request.store);
  try {
    const pi = await stripe.paymentIntents.create(
      {
        amount: request.amount,
        currency: request.currency.toLowerCase(),
        allowed_payment_method_types: ["card"],
        ...(request.token
          ? { payment_method: request.token, confirm: true, return_url: request.returnUrl }
          : {}),
        metadata: { checkout_id: request.checkoutId, store: request.store.slug },
        expand: EXPAND,
      },
      { idempotencyKey: request.idempotencyKey },
    );
    return outcomeOf(pi);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) {
      const raw = error.raw as { payment_intent?: { id?: string } } | undefined;
      return { kind: "declined", paymentRef: raw?.payment_intent?.id ?? null, reason: error.message };
    }
    throw providerError(error);
  }
};

const confirm = async (
  store: Store,
  paymentRef: string,
  token: string,
  returnUrl: string,
): Promise<ChargeOutcome> => {
  const stripe = await clientFor(store);
  try {
    return outcomeOf(
      await stripe.paymentIntents.confirm(paymentRef, {
        payment_method: token,
        return_url: returnUrl,
        expand: EXPAND,
      }),
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) {
      return { kind: "declined", paymentRef, reason: error.message };
    }
    throw providerError(error);
  }
};

/** The card rail on the port, plus its card names (`charge`, `confirm`) for card-only callers. */
export const stripeCardRail: PaymentRail & {
  charge: typeof charge;
  confirm: typeof confirm;
} = {
  id: RAIL_HANDLER_IDS.card,
  charge,
  confirm,
  start: ({ credential, ...request }) =>
    charge({ ...request, token: credential ? cardToken(credential) : null }),
  settle: (store, paymentRef, credential, returnUrl) =>
    confirm(store, paymentRef, cardToken(credential), returnUrl),
  cancel: async (store, paymentRef) => {
    const stripe = await clientFor(store);
    try {
      const pi = await stripe.paymentIntents.cancel(paymentRef, undefined, {
        idempotencyKey: `acs-cancel-${paymentRef}`,
      });
      return pi.status === "canceled"
        ? { kind: "canceled" }
        : { kind: "not_cancelable", reason: `PaymentIntent is ${pi.status}` };
    } catch (error) {
      // Stripe's definite no (already succeeded, or not cancelable in its state) is a 4xx invalid request
      if (error instanceof Stripe.errors.StripeInvalidRequestError)
        return { kind: "not_cancelable", reason: error.message };
      throw providerError(error);
    }
  },
  refund: async (store, paymentRef, idempotencyKey, amount) => {
    const stripe = await clientFor(store);
    try {
      const refund = await stripe.refunds.create(
        { payment_intent: paymentRef, ...(amount === undefined ? {} : { amount }) },
        { idempotencyKey },
      );
      return refund.status === "failed" || refund.status === "canceled"
        ? { kind: "refused", reason: refund.failure_reason ?? `refund ${refund.status}` }
        : { kind: "succeeded", refundRef: refund.id };
    } catch (error) {
      // Stripe's definite answers (already refunded, over the charge) are 4xx invalid-request errors; anything
      // else (network, 5xx, rate limit) may be retried with the same key
      if (error instanceof Stripe.errors.StripeInvalidRequestError)
        return { kind: "refused", reason: error.message };
      throw providerError(error);
    }
  },
  buyerStep: async (store, paymentRef) => {
    if (!store.stripePublishableKey) {
      throw new AppError(
        "payment_provider_error",
        `Store ${store.slug} has no Stripe publishable key configured`,
      );
    }
    const stripe = await clientFor(store);
    let pi: Stripe.PaymentIntent;
    try {
      pi = await stripe.paymentIntents.retrieve(paymentRef);
    } catch (error) {
      throw providerError(error);
    }
    if (!pi.client_secret) throw providerError(new Error(`PaymentIntent ${pi.id} has no client_secret`));
    return {
      kind: "card_confirmation",
      clientSecret: pi.client_secret,
      publishableKey: store.stripePublishableKey,
    };
  },
  retrieve: async (store, paymentRef) => {
    const stripe = await clientFor(store);
    try {
      return outcomeOf(await stripe.paymentIntents.retrieve(paymentRef, { expand: EXPAND }));
    } catch (error) {
      throw providerError(error);
    }
  },
};
