import "server-only";

import type { Store } from "@/lib/generated/prisma/client";

import type { ChargeOutcome } from "../rail";
import { clientFor, outcomeOf, providerError } from "./stripe-adapter";

/**
 * Every PaymentIntent the provider holds for a checkout, newest first, through Stripe's search API
 * (`metadata['checkout_id']:'<id>'`; the adapter tags each PaymentIntent with it). Reconciliation uses it for a
 * charge whose PaymentIntent id was never recorded (the process died right after Stripe answered). Stripe's
 * search is eventually consistent (new objects show up within about a minute): the sweep's grace period covers it.
 */
export const findCardCharges = async (store: Store, checkoutId: string): Promise<ChargeOutcome[]> => {
  const stripe = await clientFor(store);
  try {
    const found = await stripe.paymentIntents.search({
      query: `metadata['checkout_id']:'${checkoutId.replace(/['\\]/g, "\\$&")}'`,
      limit: 20,
    });
    return found.data.map(outcomeOf);
  } catch (error) {
    throw providerError(error);
  }
};
