import "server-only";

import Stripe from "stripe";

import type { Store } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/http/errors";

import type { ChargeOutcome, ChargeRequest, PaymentRail } from "../rail";
import { ensureSandboxWebhookEndpoint } from "./sandbox-webhooks";
import { SANDBOX_SECRET_KEY, sandboxEndpoint } from "./stripe-sandbox";

// The card rail on the official Stripe SDK (DECISIONS.md A: stripe@23.1.0). Live stores use their own secret
// key against api.stripe.com; test stores use the sandbox PSP through the SDK's host/port/protocol options —
// the same adapter code either way. One PaymentIntent per attempt, created and confirmed in one call with the
// payment-method token, for the live re-priced total, with our idempotency key forwarded.

export const clientFor = async (store: Store): Promise<Stripe> => {
  if (store.mode === "live") {
    if (!store.stripeSecretKey) {
      throw new AppError(
        "payment_provider_error",
        `Store ${store.slug} has no Stripe credentials configured`,
      );
    }
    return new Stripe(store.stripeSecretKey, { maxNetworkRetries: 2, timeout: 20_000 });
  }
  const { host, port, protocol } = await sandboxEndpoint();
  const sandbox = new Stripe(SANDBOX_SECRET_KEY, {
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

export const outcomeOf = (pi: Stripe.PaymentIntent): ChargeOutcome => {
  switch (pi.status) {
    case "succeeded":
      return { kind: "succeeded", paymentRef: pi.id };
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

export const stripeCardRail: PaymentRail = {
  charge: async (request: ChargeRequest) => {
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
  },
  refund: async (store, paymentRef, idempotencyKey) => {
    const stripe = await clientFor(store);
    try {
      await stripe.refunds.create({ payment_intent: paymentRef }, { idempotencyKey });
    } catch (error) {
      throw providerError(error);
    }
  },
  confirm: async (store, paymentRef, token, returnUrl) => {
    const stripe = await clientFor(store);
    try {
      return outcomeOf(
        await stripe.paymentIntents.confirm(paymentRef, { payment_method: token, return_url: returnUrl }),
      );
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) {
        return { kind: "declined", paymentRef, reason: error.message };
      }
      throw providerError(error);
    }
  },
  retrieve: async (store, paymentRef) => {
    const stripe = await clientFor(store);
    try {
      return outcomeOf(await stripe.paymentIntents.retrieve(paymentRef));
    } catch (error) {
      throw providerError(error);
    }
  },
};
