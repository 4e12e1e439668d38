import { AppError } from "@/lib/core/errors";

// What the product knows of the Stripe sandbox, the local server of Stripe's API in sandbox/stripe/ that test-mode
// stores use: its URL (STRIPE_SANDBOX_URL, set by `npm start` and by the test harness), the test account's keys,
// the documented test payment methods and the events it sends — configuration, as a real Stripe test account's
// keys would be. The product never imports the sandbox; it talks to it over HTTP through the official SDK.

export const SANDBOX_SECRET_KEY = "sk_test_sandbox";

/** The signing secret of every sandbox webhook endpoint (our route verifies test-mode stores with it). */
export const SANDBOX_WEBHOOK_SECRET = "whsec_sandbox";

/** The PaymentIntent events the sandbox sends. */
export const SANDBOX_EVENT_TYPES = [
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.requires_action",
] as const;
export type SandboxEventType = (typeof SANDBOX_EVENT_TYPES)[number];

/** Stripe's documented test payment methods, and what the sandbox does with them. */
export const SANDBOX_PAYMENT_METHODS = {
  succeeds: "pm_card_visa",
  requires3ds: "pm_card_threeDSecure2Required",
  declined: "pm_card_chargeDeclined",
} as const;

/**
 * Where the adapter sends test-mode requests: the sandbox at STRIPE_SANDBOX_URL (read on each call: the test
 * harness and `npm start` set it before the first payment). Throws payment_provider_error when none is configured.
 */
export const sandboxEndpoint = async (): Promise<{
  host: string;
  port: number;
  protocol: "http" | "https";
}> => {
  const configured = process.env.STRIPE_SANDBOX_URL;
  if (!configured) {
    throw new AppError(
      "payment_provider_error",
      "Test-mode card payments need the Stripe sandbox: set STRIPE_SANDBOX_URL (npm start starts one)",
    );
  }
  const url = new URL(configured);
  const protocol = url.protocol === "https:" ? "https" : "http";
  return { host: url.hostname, port: Number(url.port || (protocol === "https" ? 443 : 80)), protocol };
};

/**
 * The buyer's answer to the sandbox 3-DS challenge (test-mode hosted page only; real Stripe runs its own
 * challenge). Talks to the sandbox over HTTP like the SDK does.
 */
export const answerSandboxChallenge = async (paymentIntentId: string, approve: boolean): Promise<void> => {
  const { host, port, protocol } = await sandboxEndpoint();
  const response = await fetch(
    `${protocol}://${host}:${port}/sandbox/3ds/${encodeURIComponent(paymentIntentId)}`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${SANDBOX_SECRET_KEY}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ outcome: approve ? "approve" : "fail" }).toString(),
    },
  );
  await response.body?.cancel();
};
