// The Stripe sandbox (test double) as its own process: `npm run sandbox:stripe` (see ../run-as-process.ts).
import { runSandboxProcess } from "../run-as-process";
import { startStripeSandbox } from "./server";

await runSandboxProcess(startStripeSandbox, "STRIPE_SANDBOX_PORT");
