import "server-only";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { getEnv } from "@/lib/config/env";

import { listCapturedMail } from "./send-mail";

// Who reads the local mail capture in the admin: the operator reads every captured message (the service's own
// outbox in test mode and the demo); any other account only the messages sent to its own address. A store's
// order confirmations are shown on each order's page (lib/orders/admin-orders.ts).

export const capturedMailFor = async (account: AccountSummary, limit = 100) => ({
  capturing: !getEnv().SMTP_URL,
  mails: await listCapturedMail(limit, account.isOperator ? {} : { to: [account.email] }),
});
