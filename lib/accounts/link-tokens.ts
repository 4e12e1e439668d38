import "server-only";

import { createHash, randomBytes } from "node:crypto";

import { z } from "zod";

// The tokens of the links the service mails (password reset, email verification, team invitation): 32 random
// bytes in base64url, of which only the SHA-256 is stored, so a database read never yields a working link.

export const newLinkToken = (): string => randomBytes(32).toString("base64url");

export const linkTokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** A link token as it arrives from a form, with the message to show when it is not one. */
export const linkTokenSchema = (message: string) => z.string().regex(/^[A-Za-z0-9_-]{43}$/, message);
