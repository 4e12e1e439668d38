// Admin CLI: `npm run admin -- <command> [options]`. Operators manage platform keys, stores' webhooks and Stripe
// keys, and orders (fulfil, cancel, refund) here (seed §5: how keys are issued is ours). Runs with the
// react-server condition so lib/ modules marked "server-only" load. The commands live in scripts/lib/admin-commands.ts.
import { closeDb } from "@/lib/config/db";
import { toAppError } from "@/lib/core/errors";

import { runAdmin } from "./lib/admin-commands";

runAdmin(process.argv.slice(2))
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (thrown: unknown) => {
    const error = toAppError(thrown);
    const message =
      error.code === "internal_error" && thrown instanceof Error ? thrown.message : error.message;
    console.error(`admin: ${message}`);
    await closeDb().catch(() => undefined);
    process.exit(1);
  });
