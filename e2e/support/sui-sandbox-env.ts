// Preloaded into every integration test process (scripts/test-integration.ts): the Sui sandbox, a fake fullnode
// server (test double), started inside the test process so tests can read its ledger (suiSandbox()), and named to
// the product through SUI_SANDBOX_URL exactly as `npm start` does with its separate process.
import { suiSandbox } from "@/sandbox/sui/server";

const sandbox = await suiSandbox();
process.env.SUI_SANDBOX_URL ??= sandbox.url;
