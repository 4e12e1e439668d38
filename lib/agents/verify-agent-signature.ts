import "server-only";

import { createHash, type JsonWebKey } from "node:crypto";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { verifyRequestSignature, type HttpMessage, type VerifiedSignature } from "@/lib/httpsig/signature";

import { findAgentKey } from "./agent-profile";
import { allowsPrivateFor } from "./negotiate-agent";

// The signed trust tier (seed §5 rule 3, DECISIONS.md B7): a request signed per RFC 9421 with a key from the
// agent profile named in UCP-Agent. A request that claims to be signed (either signature header present) is
// verified or refused — never silently treated as unsigned. Freshness: `created`, when sent, is at most
// SIGNATURE_MAX_AGE_S old, with SIGNATURE_SKEW_S of clock skew either way; `expires`, when sent, is honoured.
// `created` is optional (RFC 9421 §2.3; UCP signatures.md leaves replay protection to the business layer).
// Replays: every verified signature is remembered until it would fail the freshness check anyway (for one without
// `created`, that window starts when we first saw it), and a second use is refused. A signature without `created`
// cannot be bounded in time, so after that window it could be replayed: state-changing calls stay protected by their
// idempotency key (a signed component on writes: a replay gets the stored response, never a second effect).

export const SIGNATURE_MAX_AGE_S = 300;
export const SIGNATURE_SKEW_S = 60;

/** True when the request carries RFC 9421 signature headers (it must then verify). */
export const claimsSignature = (headers: Headers): boolean =>
  headers.has("signature") || headers.has("signature-input");

const signatureId = (signature: VerifiedSignature): string =>
  createHash("sha256").update(`${signature.keyid} ${signature.signature}`).digest("hex");

const PURGE_INTERVAL_MS = 10 * 60_000;
let lastPurgeAt = 0;

/** @throws AppError signature_replayed when one of these signatures was verified before. */
const rememberSignatures = async (signatures: VerifiedSignature[], now: Date): Promise<void> => {
  const db = await getDb();
  if (now.getTime() - lastPurgeAt > PURGE_INTERVAL_MS) {
    lastPurgeAt = now.getTime();
    await purgeSeenSignatures(now).catch(() => 0); // best effort: a stale row only blocks a stale signature
  }
  const keepUntil = (s: VerifiedSignature): Date => {
    const windowEnd =
      ((s.created ?? Math.floor(now.getTime() / 1000)) + SIGNATURE_MAX_AGE_S + SIGNATURE_SKEW_S) * 1000;
    return new Date(Math.max(windowEnd, now.getTime()));
  };
  const rows = signatures.map((s) => ({ id: signatureId(s), expiresAt: keepUntil(s) }));
  const { count } = await db.seenSignature.createMany({ data: rows, skipDuplicates: true });
  if (count < rows.length) {
    throw new AppError("signature_replayed", "This signature was already used: sign each request afresh");
  }
};

/** Deletes remembered signatures past their window; returns how many. */
export const purgeSeenSignatures = async (now = new Date()): Promise<number> => {
  const db = await getDb();
  const { count } = await db.seenSignature.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
};

/**
 * Verifies the request's signatures against the agent profile's `signing_keys`. Returns false for an unsigned
 * request, true when every signature verifies.
 * @throws AppError signature_missing, signature_invalid, signature_replayed, key_not_found, digest_mismatch,
 *   algorithm_unsupported, and the profile errors of getAgentProfile
 */
export const verifyAgentSignature = async ({
  message,
  profileUrl,
  store,
  now,
}: {
  message: HttpMessage;
  profileUrl: string;
  store: Pick<Store, "mode"> | null;
  now: Date;
}): Promise<boolean> => {
  if (!claimsSignature(message.headers)) return false;
  if (!profileUrl) {
    throw new AppError(
      "key_not_found",
      'A signed request must name its signer\'s profile: UCP-Agent: profile="https://…/.well-known/ucp"',
    );
  }
  const allowPrivate = allowsPrivateFor(store);
  const verified = await verifyRequestSignature(message, {
    // Keys per DECISIONS.md B13: a copy at most 5 minutes old, one refetch for a key id the copy lacks.
    lookupKey: async (kid) => {
      const found = await findAgentKey(profileUrl, kid, { allowPrivate });
      if (!found.found) throw new AppError("key_not_found", `Signing key "${kid}" ${found.why}`);
      return found.key as JsonWebKey;
    },
    now,
    skewSeconds: SIGNATURE_SKEW_S,
    maxAgeSeconds: SIGNATURE_MAX_AGE_S,
  });
  if (!verified) return false;
  await rememberSignatures(verified, now);
  return true;
};
