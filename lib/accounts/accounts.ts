import "server-only";

import type { z } from "zod";

import { getDb, isUniqueViolation } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError, toAppError } from "@/lib/core/errors";
import type { MerchantAccount } from "@/lib/generated/prisma/client";
import { sendMail } from "@/lib/mail/send-mail";
import { assertAuthAttemptAllowed, recordAuthFailure } from "@/lib/rate-limit/auth-failures";

import { sendVerificationMail } from "./email-verification";
import { newLinkToken, linkTokenHash as tokenHash } from "./link-tokens";
import { hashPassword, verifyNobody, verifyPassword } from "./passwords";
import { ResetConfirmSchema, ResetRequestSchema, SignInSchema, SignUpSchema } from "./schemas";

// Merchant and developer accounts (email + password): sign-up, sign-in, and a password reset by a single-use link
// sent through the mail port. The forms and the admin CLI call these; a refusal is an AppError whose path names
// the field ($.email, $.password, …) so a form can show it beside the field.

/** How long a reset link works. */
export const RESET_TTL_MS = 30 * 60_000;

export type AccountSummary = Pick<
  MerchantAccount,
  "id" | "email" | "name" | "isOperator" | "emailVerifiedAt"
>;

export const summary = ({
  id,
  email,
  name,
  isOperator,
  emailVerifiedAt,
}: MerchantAccount): AccountSummary => ({
  id,
  email,
  name,
  isOperator,
  emailVerifiedAt,
});

/** The input parsed, or the first issue as an AppError naming its field. */
const parse = <T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> => {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new AppError("invalid_request", issue.message, {
    path: `$${issue.path.map((p) => `.${String(p)}`).join("")}`,
  });
};

/**
 * Creates an account, unverified, and mails it the link that verifies its email. A mail that cannot go out does
 * not undo the account: it signs in and sends the link again from /admin/verify-email. `isOperator` only from the
 * operator's CLI, never from a form.
 * @throws AppError invalid_request (a field, or an email that already has an account)
 */
export const createAccount = async (
  raw: unknown,
  {
    isOperator = false,
    baseUrl = getBaseUrl(),
    now = new Date(),
  }: { isOperator?: boolean; baseUrl?: string; now?: Date } = {},
): Promise<AccountSummary> => {
  const input = parse(SignUpSchema, raw);
  const passwordHash = await hashPassword(input.password);
  let account: AccountSummary;
  try {
    account = summary(
      await (
        await getDb()
      ).merchantAccount.create({
        data: {
          id: newId("merchantAccount"),
          email: input.email,
          name: input.name,
          passwordHash,
          isOperator,
        },
      }),
    );
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new AppError(
      "invalid_request",
      "An account with this email already exists: sign in, or reset its password",
      { path: "$.email" },
    );
  }
  try {
    await sendVerificationMail(account, { baseUrl, now });
  } catch (error) {
    if (toAppError(error).code !== "mail_failed") throw error;
  }
  return account;
};

/**
 * The account whose email and password these are, or null (same cost whether or not the email exists). Wrong
 * passwords are throttled like every other failed authentication (lib/rate-limit/auth-failures.ts): per source
 * address when the caller runs inside a request, and per email from anywhere.
 * @throws AppError rate_limited once the budget of the source or of the email is spent (nothing is checked)
 */
export const authenticateAccount = async (raw: unknown): Promise<AccountSummary | null> => {
  const parsed = SignInSchema.safeParse(raw);
  if (!parsed.success) return null;
  const credentialId = `account:${parsed.data.email}`;
  await assertAuthAttemptAllowed(credentialId);
  const account = await (await getDb()).merchantAccount.findUnique({ where: { email: parsed.data.email } });
  const ok = account
    ? await verifyPassword(account.passwordHash, parsed.data.password)
    : await verifyNobody(parsed.data.password);
  if (ok && account) return summary(account);
  await recordAuthFailure(credentialId);
  return null;
};

export const getAccount = async (
  id: string,
): Promise<(AccountSummary & { passwordChangedAt: Date }) | null> => {
  const account = await (await getDb()).merchantAccount.findUnique({ where: { id } });
  return account ? { ...summary(account), passwordChangedAt: account.passwordChangedAt } : null;
};

/** @throws AppError not_found for an email without an account */
export const accountByEmail = async (email: string): Promise<AccountSummary> => {
  const account = await (
    await getDb()
  ).merchantAccount.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!account) throw new AppError("not_found", `No account with email ${email.trim()}`, { path: "$.email" });
  return summary(account);
};

/** Makes an account the service's operator (the admin CLI only). @throws AppError not_found */
export const makeOperator = async (email: string): Promise<AccountSummary> => {
  const { id } = await accountByEmail(email);
  return summary(await (await getDb()).merchantAccount.update({ where: { id }, data: { isOperator: true } }));
};

/**
 * Sends a reset link when the email has an account; answers the same either way (no account probing).
 * @throws AppError invalid_request (not an email), mail_failed
 */
export const requestPasswordReset = async (
  raw: unknown,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<void> => {
  const { email } = parse(ResetRequestSchema, raw);
  const db = await getDb();
  const account = await db.merchantAccount.findUnique({ where: { email } });
  if (!account) return;
  const token = newLinkToken();
  await db.passwordReset.create({
    data: {
      id: newId("passwordReset"),
      accountId: account.id,
      tokenHash: tokenHash(token),
      expiresAt: new Date(now.getTime() + RESET_TTL_MS),
    },
  });
  await sendMail({
    to: account.email,
    subject: "Reset your Agent Commerce Service password",
    text:
      `Someone (we hope you) asked to reset the password of ${account.email}.\n\n` +
      `Choose a new password here within ${RESET_TTL_MS / 60_000} minutes:\n` +
      `${baseUrl}/admin/reset-password?token=${token}\n\n` +
      "If you did not ask for this, ignore this message: your password stays as it is.",
  });
};

/**
 * Sets a new password with a reset link's token: single use, within its time; every other open link of the
 * account stops working and every session issued before ends. The link reached the account's inbox, exactly as a
 * verification link would: an unverified account is verified by it.
 * @throws AppError invalid_request (token unknown, used or expired; password too short)
 */
export const confirmPasswordReset = async (
  raw: unknown,
  { now = new Date() }: { now?: Date } = {},
): Promise<AccountSummary> => {
  const input = parse(ResetConfirmSchema, raw);
  const passwordHash = await hashPassword(input.password);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const reset = await tx.passwordReset.findUnique({ where: { tokenHash: tokenHash(input.token) } });
    // claim it: of two uses at once, one wins
    const claimed =
      reset &&
      (
        await tx.passwordReset.updateMany({
          where: { id: reset.id, usedAt: null, expiresAt: { gt: now } },
          data: { usedAt: now },
        })
      ).count === 1;
    if (!reset || !claimed) {
      throw new AppError("invalid_request", "This reset link is used or expired: ask for a new one", {
        path: "$.token",
      });
    }
    await tx.passwordReset.updateMany({
      where: { accountId: reset.accountId, usedAt: null },
      data: { usedAt: now },
    });
    const account = await tx.merchantAccount.update({
      where: { id: reset.accountId },
      data: { passwordHash, passwordChangedAt: now },
    });
    await tx.merchantAccount.updateMany({
      where: { id: reset.accountId, emailVerifiedAt: null },
      data: { emailVerifiedAt: now },
    });
    return { ...summary(account), emailVerifiedAt: account.emailVerifiedAt ?? now };
  });
};
