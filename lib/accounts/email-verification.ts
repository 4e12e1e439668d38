import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { sendMail } from "@/lib/mail/send-mail";

import type { AccountSummary } from "./accounts";
import { linkTokenHash, linkTokenSchema, newLinkToken } from "./link-tokens";

// An account's email is verified by a link mailed to it: single use, expiring, only its hash stored. Until then
// the account signs in, creates its own stores and keys, but reads no mail but this link's and joins no team
// (docs/decisions.md "Verified accounts"). Sign-up sends the first link; the account may ask for another.

/** How long a verification link works. */
export const VERIFY_TTL_MS = 24 * 60 * 60_000;

/** The shortest time between two links of one account (so a form cannot flood an inbox). */
export const RESEND_INTERVAL_MS = 60_000;

const VerifySchema = z.strictObject({
  token: linkTokenSchema("This verification link is not valid: sign in and ask for a new one"),
});

/**
 * Mails the account a link that verifies its email. The captured copy (no SMTP_URL) is marked as this account's
 * verification mail: the one message its unverified owner may read on the mail page.
 * @throws AppError conflict (already verified), rate_limited (a link went out under a minute ago), mail_failed
 */
export const sendVerificationMail = async (
  account: Pick<AccountSummary, "id" | "email" | "emailVerifiedAt">,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<void> => {
  if (account.emailVerifiedAt) throw new AppError("conflict", `${account.email} is already verified`);
  const db = await getDb();
  const last = await db.emailVerification.findFirst({
    where: { accountId: account.id },
    orderBy: { createdAt: "desc" },
  });
  if (last && now.getTime() - last.createdAt.getTime() < RESEND_INTERVAL_MS) {
    throw new AppError(
      "rate_limited",
      "A link went out less than a minute ago: look for it in your mail, or ask again in a minute",
    );
  }
  const token = newLinkToken();
  const row = await db.emailVerification.create({
    data: {
      id: newId("emailVerification"),
      accountId: account.id,
      email: account.email,
      tokenHash: linkTokenHash(token),
      expiresAt: new Date(now.getTime() + VERIFY_TTL_MS),
      createdAt: now,
    },
  });
  try {
    await sendMail(
      {
        to: account.email,
        subject: "Verify your email for Agent Commerce Service",
        text:
          `Someone (we hope you) opened an Agent Commerce Service account with ${account.email}.\n\n` +
          `Confirm that this address is yours within ${VERIFY_TTL_MS / 3_600_000} hours:\n` +
          `${baseUrl}/admin/verify-email?token=${token}\n\n` +
          "If it was not you, ignore this message: the account stays unverified.",
      },
      {
        capture: async (message) => {
          await db.capturedMail.create({ data: { ...message, verificationFor: account.id } });
        },
      },
    );
  } catch (error) {
    // a link nobody received does not count against the next request
    await db.emailVerification.delete({ where: { id: row.id } });
    throw error;
  }
};

/**
 * Verifies the email a link was sent to: the token works once, within its time; every other open link of the
 * account closes with it. No sign-in needed: holding the link is the proof.
 * @throws AppError invalid_request (token malformed, unknown, used or expired; path $.token)
 */
export const verifyEmail = async (
  raw: unknown,
  { now = new Date() }: { now?: Date } = {},
): Promise<{ email: string }> => {
  const parsed = VerifySchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("invalid_request", parsed.error.issues[0]!.message, { path: "$.token" });
  }
  return (await getDb()).$transaction(async (tx) => {
    const link = await tx.emailVerification.findUnique({
      where: { tokenHash: linkTokenHash(parsed.data.token) },
      include: { account: { select: { email: true } } },
    });
    if (!link || link.account.email !== link.email) {
      throw new AppError(
        "invalid_request",
        "This verification link is not valid: sign in and ask for a new one",
        {
          path: "$.token",
        },
      );
    }
    // claim it: of two uses at once, one wins
    const claimed = await tx.emailVerification.updateMany({
      where: { id: link.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (claimed.count !== 1) {
      throw new AppError(
        "invalid_request",
        link.usedAt
          ? "This verification link was already used: sign in, your account shows whether it is verified"
          : "This verification link expired: sign in and ask for a new one",
        { path: "$.token" },
      );
    }
    await tx.emailVerification.updateMany({
      where: { accountId: link.accountId, usedAt: null },
      data: { usedAt: now },
    });
    await tx.merchantAccount.updateMany({
      where: { id: link.accountId, emailVerifiedAt: null },
      data: { emailVerifiedAt: now },
    });
    return { email: link.email };
  });
};
