import { createHash } from "node:crypto";

import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose";

import { AppError } from "@/lib/core/errors";
import { memoByObject } from "@/lib/core/memo-by-object";

import { mandatePayload, previousMandateTerms, type MandateTerms } from "./mandate-terms";
import { describeTermsChange } from "./terms-history";

// the agent profile cache hands out the same JWK object while it holds the profile: import it once per copy
const importAgentKey = memoByObject((jwk: object) => importJWK({ ...(jwk as JWK), alg: "ES256" }, "ES256"));

// Verification of `ap2.checkout_mandate` exactly as DECISIONS.md B5: an ES256 compact JWS with a detached
// payload `<b64url(header)>..<b64url(signature)>`; protected header alg/kid/exp/merchant/checkout_id; payload =
// JCS of the mandate terms of the live, re-priced checkout. The signing key is found by `kid` in the agent
// profile's `signing_keys` (the caller looks it up through the guarded, cached fetcher, which refetches the profile
// for a key id it does not know: DECISIONS.md B13).

const DETACHED = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]+)$/;
const PATH = "$.ap2.checkout_mandate";

/** Finds a signing key by kid: the key, or why it is missing (said to the agent). */
export type MandateKeyLookup = (
  kid: string,
) => Promise<{ key: Record<string, unknown> } | { missing: string }>;

/** A lookup over a fixed list of keys. */
export const keysFrom =
  (keys: readonly Record<string, unknown>[]): MandateKeyLookup =>
  async (kid) => {
    const key = keys.find((k) => k.kid === kid);
    return key ? { key } : { missing: "is not in the agent profile's signing_keys" };
  };

export type MandateHeader = { alg: "ES256"; kid: string; exp: number; merchant: string; checkout_id: string };

const invalid = (why: string) =>
  new AppError("mandate_invalid_signature", `Checkout mandate ${why}`, { path: PATH });

const readHeader = (jws: string): Record<string, unknown> => {
  try {
    return decodeProtectedHeader(jws) as Record<string, unknown>;
  } catch {
    throw invalid("has an unreadable protected header");
  }
};

/**
 * Verifies a checkout mandate against the live terms. Order: shape, header claims (alg, exp, merchant,
 * checkout_id), key lookup, then the signature over the JCS terms (so a stale price fails the signature).
 * @throws AppError mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch,
 *   agent_missing_key
 */
export const verifyCheckoutMandate = async (
  mandate: string | undefined,
  {
    terms,
    lookupKey,
    now,
    earlierTerms = [],
  }: {
    terms: MandateTerms;
    lookupKey: MandateKeyLookup;
    now: Date;
    /** The checkout's terms after its earlier creates and updates, newest last (terms-history.ts). */
    earlierTerms?: readonly MandateTerms[];
  },
): Promise<MandateHeader> => {
  if (!mandate) {
    throw new AppError(
      "mandate_required",
      "Card completion needs ap2.checkout_mandate: a detached ES256 JWS over the checkout's mandate terms",
      { path: PATH },
    );
  }
  const match = DETACHED.exec(mandate);
  if (!match) throw invalid("must be a detached compact JWS: <b64url(header)>..<b64url(signature)>");
  const header = readHeader(mandate);
  if (header.alg !== "ES256") throw invalid(`must use alg ES256 (got ${String(header.alg)})`);
  if (typeof header.kid !== "string" || header.kid === "") throw invalid("header has no kid");
  if (typeof header.exp !== "number" || !Number.isFinite(header.exp)) {
    throw new AppError("mandate_expired", "Checkout mandate header has no numeric exp", { path: PATH });
  }
  if (header.exp * 1000 <= now.getTime()) {
    throw new AppError(
      "mandate_expired",
      `Checkout mandate expired at ${new Date(header.exp * 1000).toISOString()}`,
      { path: PATH },
    );
  }
  if (header.merchant !== terms.merchant) {
    throw new AppError(
      "mandate_scope_mismatch",
      `Checkout mandate is for merchant "${String(header.merchant)}", not "${terms.merchant}"`,
      { path: PATH },
    );
  }
  if (header.checkout_id !== terms.checkout_id) {
    throw new AppError(
      "mandate_scope_mismatch",
      `Checkout mandate is for checkout "${String(header.checkout_id)}", not "${terms.checkout_id}"`,
      { path: PATH },
    );
  }
  const found = await lookupKey(header.kid);
  if ("missing" in found) {
    throw new AppError("agent_missing_key", `Checkout mandate key "${header.kid}" ${found.missing}`, {
      path: PATH,
    });
  }
  const jwk = found.key;
  let key;
  try {
    key = await importAgentKey(jwk as object);
  } catch {
    throw invalid(`key "${header.kid}" in the agent profile is not a usable P-256 key`);
  }
  const verifies = async (payloadBytes: Uint8Array) => {
    const payload = Buffer.from(payloadBytes).toString("base64url");
    try {
      await compactVerify(`${match[1]}.${payload}.${match[2]}`, key, { algorithms: ["ES256"] });
      return true;
    } catch {
      return false;
    }
  };
  if (await verifies(mandatePayload(terms))) return header as MandateHeader;
  if (await verifies(mandatePayload(previousMandateTerms(terms)))) {
    throw invalid(
      "was signed over the previous terms (lines and totals only); sign the current terms, which also cover " +
        "buyer.email and the fulfillment method, destination and option (README: Card payments and checkout mandates)",
    );
  }
  for (const earlier of [...earlierTerms].reverse()) {
    if (!(await verifies(mandatePayload(earlier)))) continue;
    const changes = describeTermsChange(earlier, terms);
    throw invalid(
      `was signed over an earlier version of this checkout; since then ${
        changes.length > 0 ? changes.join("; ") : "the order of its line items or totals changed"
      } — re-read the checkout (GET) and sign its current terms`,
    );
  }
  const digest = createHash("sha256").update(mandatePayload(terms)).digest("base64url");
  throw invalid(
    `signature does not verify over this checkout's current terms with key "${header.kid}": either the key ` +
      "signed other bytes (a price, line, total, the buyer's email or the shipment changed since signing, or the " +
      'terms were built differently: see README "Card payments and checkout mandates"), or the signature was made with another ' +
      `key. The current terms' JCS bytes have SHA-256 ${digest} (base64url): compare with the bytes you signed`,
  );
};
