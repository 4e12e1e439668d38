import "server-only";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { getEnv, type Env } from "@/lib/config/env";

import { listCapturedMail } from "./send-mail";

// Who reads the local mail capture in the admin. The page exists only where mail is captured (no SMTP_URL) and the
// deployment is not production (NODE_ENV=production on PostgreSQL, as for the sandbox wallet): the embedded demo,
// a developer's machine, the tests. There the operator reads every captured message; a verified account the
// messages sent to its own address; an unverified one only its own verification link, because anyone can sign up
// with any address (docs/decisions.md "Verified accounts"). A store's order confirmations are shown on each
// order's page (lib/orders/admin-orders.ts).

/** Whether a deployment with `env` has the mail page. */
export const mailPageAvailableIn = (env: Pick<Env, "SMTP_URL" | "NODE_ENV" | "DATABASE_URL">): boolean =>
  !env.SMTP_URL && !(env.NODE_ENV === "production" && env.DATABASE_URL !== undefined);

/** Whether this deployment has the mail page. */
export const mailPageAvailable = (): boolean => mailPageAvailableIn(getEnv());

export type MailScope = "all" | "own_address" | "own_verification";

/** What the account may read of the capture: every message, those to its address, or its verification link. */
export const mailScopeOf = (account: AccountSummary): MailScope =>
  account.isOperator ? "all" : account.emailVerifiedAt ? "own_address" : "own_verification";

export const capturedMailFor = async (account: AccountSummary, limit = 100) => {
  const scope = mailScopeOf(account);
  const filter =
    scope === "all"
      ? {}
      : scope === "own_address"
        ? { to: [account.email] }
        : { to: [account.email], verificationFor: account.id };
  return { scope, mails: await listCapturedMail(limit, filter) };
};
