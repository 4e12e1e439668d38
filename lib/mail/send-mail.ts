import "server-only";

import nodemailer from "nodemailer";

import { getDb } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";

// The mail port: password resets, email verifications, team invitations and order confirmations go out through SMTP (nodemailer) when SMTP_URL is set;
// otherwise they are kept in the database (the local capture), which the admin shows, so the embedded demo and
// the tests see every message without a mail server. Plain text only: every message is a sentence and a link.

export type Mail = { to: string; subject: string; text: string };

export type SentMail = { via: "smtp"; messageId: string } | { via: "capture"; id: string };

/** The local capture of one message, as stored (captured_mail). */
export type CapturedMessage = Mail & { id: string };

/** nodemailer's timeouts of one SMTP send: connecting, the server's greeting, and any silence after. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 10_000 } as const;

/** How long one message may take over SMTP: its timeouts, one after another. */
export const SEND_BOUND_MS =
  SMTP_TIMEOUTS.connectionTimeout + SMTP_TIMEOUTS.greetingTimeout + SMTP_TIMEOUTS.socketTimeout;

/**
 * Sends (or captures) one message.
 * @throws AppError mail_failed when the SMTP server refuses or cannot be reached
 */
export const sendMail = async (
  mail: Mail,
  {
    smtpUrl = getEnv().SMTP_URL,
    from = getEnv().MAIL_FROM,
    capture,
  }: {
    smtpUrl?: string;
    from?: string;
    /** Stores the captured message itself (a mail that must be kept with a state change, in one write). */
    capture?: (message: CapturedMessage) => Promise<void>;
  } = {},
): Promise<SentMail> => {
  if (!smtpUrl) {
    const id = newId("capturedMail");
    if (capture) await capture({ id, ...mail });
    else await (await getDb()).capturedMail.create({ data: { id, ...mail } });
    return { via: "capture", id };
  }
  const transport = nodemailer.createTransport(smtpUrl, { ...SMTP_TIMEOUTS });
  try {
    const info = await transport.sendMail({ from, ...mail });
    return { via: "smtp", messageId: info.messageId };
  } catch (error) {
    // the server's text may quote the credentials of the URL: say only what failed
    throw new AppError(
      "mail_failed",
      `The mail to ${mail.to} could not be sent (${(error as { code?: string }).code ?? "SMTP error"})`,
      { cause: error },
    );
  } finally {
    transport.close();
  }
};

/**
 * The captured mail, newest first (the admin's mail view and the tests); only the messages to `to` when given, and
 * only the verification mail of account `verificationFor` when given.
 */
export const listCapturedMail = async (
  limit = 50,
  {
    to,
    subjectContains,
    verificationFor,
  }: { to?: string[]; subjectContains?: string; verificationFor?: string } = {},
) =>
  (await getDb()).capturedMail.findMany({
    where: {
      ...(to ? { to: { in: to } } : {}),
      ...(subjectContains ? { subject: { contains: subjectContains } } : {}),
      ...(verificationFor ? { verificationFor } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: limit,
  });
