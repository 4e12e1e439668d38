import { createHash, timingSafeEqual } from "node:crypto";

// PKCE (RFC 7636) with S256 only (RFC 9700 §2.1.1; UCP identity linking forbids plain).

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A S256 challenge is the base64url SHA-256 of a verifier: 43 characters, no padding. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isValidCodeVerifier = (verifier: string): boolean => VERIFIER.test(verifier);
export const isValidS256Challenge = (challenge: string): boolean => CHALLENGE.test(challenge);

export const s256 = (verifier: string): string => createHash("sha256").update(verifier).digest("base64url");

/** True when `verifier` is well formed and hashes to `challenge`; compared in constant time. */
export const verifiesChallenge = (verifier: string, challenge: string): boolean => {
  if (!isValidCodeVerifier(verifier)) return false;
  const left = Buffer.from(s256(verifier));
  const right = Buffer.from(challenge);
  return left.length === right.length && timingSafeEqual(left, right);
};
