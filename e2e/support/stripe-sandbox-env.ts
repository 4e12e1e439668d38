// Preloaded into every integration test process (scripts/test-integration.ts): the Stripe sandbox, a real HTTP
// server of Stripe's API, started inside the test process so tests can read its ledger (stripeSandbox()), and
// named to the product through STRIPE_SANDBOX_URL exactly as `npm start` does with its separate process.
import { stripeSandbox } from "@/sandbox/stripe/server";

const sandbox = await stripeSandbox();
process.env.STRIPE_SANDBOX_URL ??= sandbox.url;
