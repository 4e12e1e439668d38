import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { sendMail } from "@/lib/mail/send-mail";

import type { AccountSummary } from "./accounts";
import { linkTokenHash, linkTokenSchema, newLinkToken } from "./link-tokens";
import { storeForAccount, type StoreRole } from "./store-access";

// Joining a store's team: an owner invites an email address with a role; the invitation is mailed as a link that
// works once, until it expires. Only a signed-in account whose email is that address, and verified, accepts it, and
// only while the person who invited is still an owner of the store (or the operator). A refusal changes nothing.

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

const ROLES = ["owner", "staff"] as const;

export const InviteSchema = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, "An email address has at most 254 characters")
    .pipe(z.email({ error: "Enter an email address such as you@example.com" })),
  role: z.enum(ROLES, { error: "Choose owner or staff" }),
});

const TokenSchema = z.strictObject({
  token: linkTokenSchema("This invitation link is not valid: ask an owner of the store for a new one"),
});

export type PendingInvitation = {
  id: string;
  email: string;
  role: StoreRole;
  expiresAt: Date;
  invitedBy: string;
};

/** What an invitation link shows before it is accepted. */
export type InvitationView = {
  storeName: string;
  role: StoreRole;
  email: string;
  invitedBy: string;
  expiresAt: Date;
};

const firstIssue = (error: z.ZodError): AppError => {
  const issue = error.issues[0]!;
  return new AppError("invalid_request", issue.message, { path: `$.${String(issue.path[0] ?? "")}` });
};

const NOT_VALID = "This invitation link is not valid: ask an owner of the store for a new one";

/**
 * Invites an address to the store's team and mails it the link; a newer invitation of the same address replaces
 * the open one. Nothing is kept when the mail cannot go out.
 * @throws AppError store_not_found, owner_required, invalid_request (bad email or role), conflict (already on the
 * team), mail_failed
 */
export const inviteToStore = async (
  account: AccountSummary,
  slug: string,
  raw: unknown,
  { baseUrl = getBaseUrl(), now = new Date() }: { baseUrl?: string; now?: Date } = {},
): Promise<PendingInvitation> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const parsed = InviteSchema.safeParse(raw);
  if (!parsed.success) throw firstIssue(parsed.error);
  const { email, role } = parsed.data;
  const db = await getDb();
  const member = await db.storeMembership.findFirst({ where: { storeId: store.id, account: { email } } });
  if (member) {
    throw new AppError("conflict", `${email} is already on the team of ${store.name} (${member.role})`, {
      path: "$.email",
    });
  }
  const token = newLinkToken();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  const invitation = await db.$transaction(async (tx) => {
    await tx.storeInvitation.updateMany({
      where: { storeId: store.id, email, acceptedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    return tx.storeInvitation.create({
      data: {
        id: newId("storeInvitation"),
        storeId: store.id,
        email,
        role,
        invitedById: account.id,
        tokenHash: linkTokenHash(token),
        expiresAt,
        createdAt: now,
      },
    });
  });
  try {
    await sendMail({
      to: email,
      subject: `${account.name} invites you to ${store.name} as ${role}`,
      text:
        `${account.name} (${account.email}) invites ${email} to run ${store.name} as ${role} ` +
        `on Agent Commerce Service.\n\n` +
        `Accept within ${INVITATION_TTL_MS / 86_400_000} days, signed in with an account of this address ` +
        `(create one at ${baseUrl}/admin/sign-up if you have none):\n` +
        `${baseUrl}/admin/invitations/accept?token=${token}\n\n` +
        "If you do not know them, ignore this message: nothing happens.",
    });
  } catch (error) {
    await db.storeInvitation.delete({ where: { id: invitation.id } });
    await db.storeInvitation.updateMany({
      where: { storeId: store.id, email, revokedAt: now, acceptedAt: null },
      data: { revokedAt: null },
    });
    throw error;
  }
  return { id: invitation.id, email, role, expiresAt, invitedBy: account.name };
};

/** The store's invitations still open (not accepted, withdrawn or expired), newest first. Every member sees them. */
export const listOpenInvitations = async (
  account: AccountSummary,
  slug: string,
  { now = new Date() }: { now?: Date } = {},
): Promise<PendingInvitation[]> => {
  const { store } = await storeForAccount(account, slug, "staff");
  const rows = await (
    await getDb()
  ).storeInvitation.findMany({
    where: { storeId: store.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    include: { invitedBy: { select: { name: true } } },
    orderBy: { createdAt: "desc" },
  });
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role as StoreRole,
    expiresAt: r.expiresAt,
    invitedBy: r.invitedBy.name,
  }));
};

/** Withdraws an open invitation: its link stops working. @throws AppError store_not_found, owner_required, not_found */
export const revokeInvitation = async (
  account: AccountSummary,
  slug: string,
  invitationId: string,
  { now = new Date() }: { now?: Date } = {},
): Promise<void> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const { count } = await (
    await getDb()
  ).storeInvitation.updateMany({
    where: { id: invitationId, storeId: store.id, acceptedAt: null, revokedAt: null },
    data: { revokedAt: now },
  });
  if (count !== 1) {
    throw new AppError("not_found", "That invitation is no longer open", { path: "$.invitation_id" });
  }
};

type InvitationRow = Prisma.StoreInvitationGetPayload<{
  include: { store: { select: { name: true; slug: true } }; invitedBy: true };
}>;

/** The invitation of a token, refused as the link's holder would need to hear it. */
const openInvitation = async (
  db: Prisma.TransactionClient,
  raw: unknown,
  now: Date,
): Promise<InvitationRow> => {
  const parsed = TokenSchema.safeParse(raw);
  if (!parsed.success) throw new AppError("invalid_request", NOT_VALID, { path: "$.token" });
  const invitation = await db.storeInvitation.findUnique({
    where: { tokenHash: linkTokenHash(parsed.data.token) },
    include: { store: { select: { name: true, slug: true } }, invitedBy: true },
  });
  if (!invitation) throw new AppError("invalid_request", NOT_VALID, { path: "$.token" });
  const ask = `ask an owner of ${invitation.store.name} for a new one`;
  if (invitation.acceptedAt) {
    throw new AppError("invalid_request", `This invitation was already accepted: it works once`, {
      path: "$.token",
    });
  }
  if (invitation.revokedAt) {
    throw new AppError("invalid_request", `This invitation was withdrawn: ${ask}`, { path: "$.token" });
  }
  if (invitation.expiresAt <= now) {
    throw new AppError("invalid_request", `This invitation expired: ${ask}`, { path: "$.token" });
  }
  return invitation;
};

/** What the link invites to, for its page. @throws AppError invalid_request (not valid, used, withdrawn, expired) */
export const viewInvitation = async (
  raw: unknown,
  { now = new Date() }: { now?: Date } = {},
): Promise<InvitationView> => {
  const invitation = await openInvitation(await getDb(), raw, now);
  return {
    storeName: invitation.store.name,
    role: invitation.role as StoreRole,
    email: invitation.email,
    invitedBy: invitation.invitedBy.name,
    expiresAt: invitation.expiresAt,
  };
};

/**
 * Accepts an invitation with the signed-in account: its email must be the invited address and verified, the
 * inviter still an owner of the store (or the operator), the role one that exists. Claimed once, with the
 * membership in the same transaction.
 * @throws AppError invalid_request (token not valid, used, withdrawn or expired; account unverified or of another
 * address; role unknown), owner_required (the inviter is no longer an owner), conflict (already on the team)
 */
export const acceptInvitation = async (
  account: AccountSummary,
  raw: unknown,
  { now = new Date() }: { now?: Date } = {},
): Promise<{ storeSlug: string; storeName: string; role: StoreRole }> =>
  (await getDb()).$transaction(async (tx) => {
    const invitation = await openInvitation(tx, raw, now);
    const store = invitation.store;
    // the account as stored now, not as the session last saw it
    const me = await tx.merchantAccount.findUnique({ where: { id: account.id } });
    if (!me || me.email !== invitation.email) {
      throw new AppError(
        "invalid_request",
        `This invitation is for ${invitation.email}: sign in with the account of that address`,
        { path: "$.token" },
      );
    }
    if (!me.emailVerifiedAt) {
      throw new AppError(
        "invalid_request",
        `Verify ${me.email} first (the link we mailed you, or a new one from /admin/verify-email), then accept`,
        { path: "$.token" },
      );
    }
    const role = invitation.role;
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new AppError("invalid_request", `This invitation names no role we know ("${role}")`, {
        path: "$.token",
      });
    }
    if (!invitation.invitedBy.isOperator) {
      const inviter = await tx.storeMembership.findUnique({
        where: { accountId_storeId: { accountId: invitation.invitedById, storeId: invitation.storeId } },
      });
      if (inviter?.role !== "owner") {
        throw new AppError(
          "owner_required",
          `${invitation.invitedBy.name} is no longer an owner of ${store.name}: ask a current owner for a new invitation`,
        );
      }
    }
    const existing = await tx.storeMembership.findUnique({
      where: { accountId_storeId: { accountId: me.id, storeId: invitation.storeId } },
    });
    if (existing) {
      throw new AppError("conflict", `You are already on the team of ${store.name} (${existing.role})`);
    }
    // claim it: of two uses at once, one wins
    const claimed = await tx.storeInvitation.updateMany({
      where: { id: invitation.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now },
    });
    if (claimed.count !== 1) {
      throw new AppError("invalid_request", "This invitation was already accepted: it works once", {
        path: "$.token",
      });
    }
    await tx.storeMembership.create({
      data: { id: newId("storeMembership"), accountId: me.id, storeId: invitation.storeId, role },
    });
    return { storeSlug: store.slug, storeName: store.name, role: role as StoreRole };
  });
