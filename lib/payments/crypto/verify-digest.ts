import "server-only";

import { fromBase58 } from "@mysten/sui/utils";

import { AppError, isAppError } from "@/lib/core/errors";

import type { PaymentLeg } from "./build-payment";
import type { ChainPort } from "./chain";
import { normalizeAddress, normalizeCoinType } from "./coins";

// Verifying a digest the agent hands over at completion (SUI.md §4, rules 1–4 and 6), through the chain port:
// 1. the node knows it and it succeeded; 2. its sender (from the BCS) is the checkout's buyer; 3. every expected
// leg reached its merchant: the balance changes of (merchant, coin type) sum to at least the leg's amount —
// balance changes are NET per owner and coin, so the buyer's side (which includes gas) is never checked;
// 4. it is in a checkpoint (final: Sui does not reorg) whose time is at or after the prepare and within the quote
// window; 6. a digest equal to the prepared one is the fast path (its bytes are ours, so it cannot predate the
// prepare); any other digest — a wallet that re-gassed our transaction, or another transaction — is judged by
// rules 1–4 alone, so a re-gassed payment still verifies on its legs. Rule 5 (a digest settles one checkout, or
// each leg of its combined group once) is the database's job.
//
// The answer is a typed outcome, never a throw for what the chain says; only a malformed digest string is an
// error (invalid_request). A node that is down, slow or unreadable is `unavailable`: like `pending`, it is not
// terminal and must never lead to an invitation to pay again.

export type LegCheck = PaymentLeg & { received: bigint };

export type VerifyOutcome =
  | {
      kind: "paid";
      digest: string;
      checkpoint: bigint;
      timestampMs: number;
      fastPath: boolean;
      legs: LegCheck[];
    }
  /** The node does not know the digest yet, or it is not in a checkpoint yet: retry later. */
  | { kind: "pending"; digest: string }
  /** Executed and failed on chain (only gas moved). */
  | { kind: "failed"; digest: string; error: string }
  | { kind: "wrong_sender"; digest: string; sender: string }
  /** Some legs received less than expected (each listed with what arrived). */
  | { kind: "short_leg"; digest: string; legs: LegCheck[]; short: LegCheck[] }
  /** In a checkpoint older than the prepare: an earlier transfer cannot pay this checkout. */
  | { kind: "too_old"; digest: string; timestampMs: number }
  /** After the quote window; `covered`: every expected leg arrived in full (pass re-priced legs to re-check). */
  | {
      kind: "late";
      digest: string;
      timestampMs: number;
      checkpoint: bigint;
      covered: boolean;
      legs: LegCheck[];
    }
  | { kind: "unavailable"; digest: string; reason: string };

export type ExpectedPayment = {
  buyer: string;
  legs: readonly PaymentLeg[];
  /** When the payment was prepared (ms since epoch). */
  preparedAtMs: number;
  /** End of the quote window (ms since epoch). */
  expiresAtMs: number;
  /** The digest of the transaction we built, when there is one. */
  preparedDigest?: string | null;
};

/** Whether a string is a Sui transaction digest (base58 of 32 bytes). */
export const isTransactionDigest = (value: string): boolean => {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return false;
  try {
    return fromBase58(value).length === 32;
  } catch {
    return false;
  }
};

/**
 * Reads `digest` on the chain and judges it against the expected payment.
 * @throws invalid_request — the digest is not a transaction digest; the expected payment is malformed.
 */
export const verifyDigest = async (
  chain: ChainPort,
  digest: string,
  expected: ExpectedPayment,
): Promise<VerifyOutcome> => {
  if (!isTransactionDigest(digest))
    throw new AppError("invalid_request", "The credential token is not a Sui transaction digest");
  const buyer = normalizeAddress(expected.buyer);
  if (buyer === null) throw new AppError("invalid_request", "Invalid buyer address");
  // Expected legs summed per (merchant, coin): one transfer must never satisfy two legs that name the same pair.
  const legs: PaymentLeg[] = [];
  for (const leg of expected.legs) {
    const merchant = normalizeAddress(leg.merchant);
    const coinType = normalizeCoinType(leg.coinType);
    if (merchant === null || coinType === null || leg.amount <= 0n)
      throw new AppError("invalid_request", "Invalid expected leg");
    const same = legs.find((l) => l.merchant === merchant && l.coinType === coinType);
    if (same) same.amount += leg.amount;
    else legs.push({ merchant, coinType, amount: leg.amount });
  }
  if (legs.length === 0) throw new AppError("invalid_request", "No expected leg");

  let tx;
  try {
    tx = await chain.getTransaction(digest);
  } catch (error) {
    if (isAppError(error) && error.code === "payment_provider_error")
      return { kind: "unavailable", digest, reason: String(error.details?.reason ?? "unreachable") };
    throw error;
  }
  // rule 1
  if (!tx) return { kind: "pending", digest };
  if (!tx.success) return { kind: "failed", digest, error: tx.error ?? "failed" };
  // rule 4: final only once checkpointed
  if (tx.checkpoint === null || tx.timestampMs === null) return { kind: "pending", digest };
  // rule 2
  if (tx.sender !== buyer) return { kind: "wrong_sender", digest, sender: tx.sender };
  // rule 6: our own bytes were built at the prepare, so they cannot have landed before it
  const fastPath = expected.preparedDigest === digest;
  if (!fastPath && tx.timestampMs < expected.preparedAtMs)
    return { kind: "too_old", digest, timestampMs: tx.timestampMs };
  // rule 3
  const checks: LegCheck[] = legs.map((leg) => ({
    ...leg,
    received: tx.balanceChanges
      .filter((c) => c.address === leg.merchant && c.coinType === leg.coinType)
      .reduce((sum, c) => sum + c.amount, 0n),
  }));
  const short = checks.filter((c) => c.received < c.amount);
  if (tx.timestampMs > expected.expiresAtMs) {
    return {
      kind: "late",
      digest,
      timestampMs: tx.timestampMs,
      checkpoint: tx.checkpoint,
      covered: short.length === 0,
      legs: checks,
    };
  }
  if (short.length > 0) return { kind: "short_leg", digest, legs: checks, short };
  return {
    kind: "paid",
    digest,
    checkpoint: tx.checkpoint,
    timestampMs: tx.timestampMs,
    fastPath,
    legs: checks,
  };
};
