import { parseSerializedSignature } from "@mysten/sui/cryptography";
import { Ed25519PublicKey } from "@mysten/sui/keypairs/ed25519";
import { verifyPersonalMessageSignature } from "@mysten/sui/verify";
import canonicalize from "canonicalize";
import { z } from "zod";

import { AppError } from "@/lib/core/errors";

// The AP2 intent mandate (DECISIONS B6): the buyer's spend allowance, signed with their Sui wallet. Wire form: base64
// of the JSON envelope {payload, signature}; `signature` is a Sui personal-message signature over the JCS
// (RFC 8785) bytes of `payload`, so anyone can verify it offline against payload.buyer_address. No "server-only":
// the wallet page builds and signs the same payload in the browser.
//
// Verification here covers ONE order: the signature, the buyer and agent it names, its expiry, the merchant list and
// the per-order maximum in the allowance's currency. The rolling day/week/month limits need the spend ledger across
// stores and rails, which sits on top of this.

export const IntentPayloadSchema = z.strictObject({
  v: z.literal(2),
  id: z.string().min(8).max(100),
  buyer_address: z.string().regex(/^0x[0-9a-f]{64}$/, "a normalized Sui address (0x + 64 lower-case hex)"),
  agent: z.string().min(1).max(2000),
  currency: z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code"),
  per_order_max: z.number().int().positive().optional(),
  limits: z
    .strictObject({
      day: z.number().int().positive().optional(),
      week: z.number().int().positive().optional(),
      month: z.number().int().positive().optional(),
    })
    .default({}),
  merchants: z.union([z.literal("*"), z.array(z.string().min(1).max(100)).min(1).max(100)]),
  expires_at: z.iso.datetime({ offset: true }),
  nonce: z.string().min(8).max(200),
});
export type IntentPayload = z.infer<typeof IntentPayloadSchema>;

const EnvelopeSchema = z.strictObject({ payload: z.unknown(), signature: z.string().min(1).max(4000) });

/** The bytes the buyer's wallet signs. */
export const intentSigningBytes = (payload: IntentPayload): Uint8Array =>
  new TextEncoder().encode(canonicalize(payload) ?? "");

/** The wire form of a signed allowance. */
export const encodeIntentMandate = (payload: IntentPayload, signature: string): string =>
  Buffer.from(JSON.stringify({ payload, signature }), "utf8").toString("base64");

const PATH = "$.ap2.intent_mandate";

/**
 * Envelopes whose form and signature verified, by their wire form: an agent sends the same signed allowance with a
 * prepare and again with each completion, and the same bytes verify the same way every time (the expiry is still
 * checked on each call). Bounded: the oldest is dropped first.
 */
const verified = new Map<string, IntentPayload>();
const VERIFIED_MAX = 1_000;

/**
 * An Ed25519 key whose signatures are checked by the platform's own Ed25519 (WebCrypto: native in Node) first: the
 * SDK checks them in JavaScript, ~2 ms of CPU each. What the platform accepts is valid for the SDK too (it accepts
 * every RFC 8032 signature, and ZIP 215's few more); anything else — refused, or no Ed25519 in this runtime — is
 * decided by the SDK as before, so the answer is always the SDK's.
 */
class NativeFirstEd25519PublicKey extends Ed25519PublicKey {
  override async verify(message: Uint8Array, signature: Uint8Array | string): Promise<boolean> {
    try {
      const parsed = typeof signature === "string" ? parseSerializedSignature(signature) : null;
      const raw = parsed ? parsed.signature : signature;
      const samePublicKey =
        !parsed ||
        (parsed.signatureScheme === "ED25519" &&
          Buffer.from(parsed.publicKey ?? []).equals(Buffer.from(this.toRawBytes())));
      if (raw && samePublicKey) {
        const key = await globalThis.crypto.subtle.importKey(
          "raw",
          this.toRawBytes() as Uint8Array<ArrayBuffer>,
          { name: "Ed25519" },
          false,
          ["verify"],
        );
        const valid = await globalThis.crypto.subtle.verify(
          { name: "Ed25519" },
          key,
          raw as Uint8Array<ArrayBuffer>,
          message as Uint8Array<ArrayBuffer>,
        );
        if (valid) return true;
      }
    } catch {
      // no Ed25519 in this runtime, or a form it does not take: the SDK decides
    }
    return super.verify(message, signature);
  }
}

/**
 * verifyPersonalMessageSignature with `address`, an Ed25519 signature checked natively first (the SDK's answer in
 * every case).
 * @throws Error when the signature is not valid for the message and address
 */
const verifyPersonalMessage = async (message: Uint8Array, signature: string, address: string) => {
  const parsed = parseSerializedSignature(signature);
  if (parsed.signatureScheme !== "ED25519" || !parsed.publicKey) {
    await verifyPersonalMessageSignature(message, signature, { address });
    return;
  }
  const publicKey = new NativeFirstEd25519PublicKey(parsed.publicKey);
  if (!(await publicKey.verifyPersonalMessage(message, signature))) {
    throw new Error("Signature is not valid for the provided message");
  }
  if (!publicKey.verifyAddress(address)) throw new Error("Signature is not valid for the provided address");
};

/**
 * Decodes and checks an intent mandate's form and signature (not what it allows).
 * @throws AppError mandate_required (absent), mandate_invalid_signature (unreadable, malformed or not signed by
 *   buyer_address), mandate_expired
 */
export const readIntentMandate = async (encoded: string | undefined, now: Date): Promise<IntentPayload> => {
  if (!encoded) {
    throw new AppError(
      "mandate_required",
      "A crypto completion needs ap2.intent_mandate: the buyer's spend allowance, signed with their wallet on the wallet page",
      { path: PATH },
    );
  }
  const known = verified.get(encoded);
  if (known) return unexpired(known, now);
  let envelope: z.infer<typeof EnvelopeSchema>;
  try {
    const text = Buffer.from(encoded, "base64").toString("utf8");
    envelope = EnvelopeSchema.parse(JSON.parse(text));
  } catch {
    throw new AppError(
      "mandate_invalid_signature",
      "ap2.intent_mandate is not base64 of a JSON envelope {payload, signature}",
      { path: PATH },
    );
  }
  const parsed = IntentPayloadSchema.safeParse(envelope.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError(
      "mandate_invalid_signature",
      `The intent mandate's payload is malformed at ${issue.path.join(".") || "payload"}: ${issue.message}`,
      { path: PATH },
    );
  }
  const payload = parsed.data;
  try {
    // the signed bytes are the JCS of the payload as sent: a field added, removed or changed fails here
    await verifyPersonalMessage(
      intentSigningBytes(envelope.payload as IntentPayload),
      envelope.signature,
      payload.buyer_address,
    );
  } catch {
    throw new AppError(
      "mandate_invalid_signature",
      "The intent mandate's signature does not verify for its buyer_address (tampered, or signed by another wallet)",
      { path: PATH },
    );
  }
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(encoded, payload);
  return unexpired(payload, now);
};

/** @throws AppError mandate_expired */
const unexpired = (payload: IntentPayload, now: Date): IntentPayload => {
  if (Date.parse(payload.expires_at) <= now.getTime()) {
    throw new AppError("mandate_expired", `The intent mandate expired at ${payload.expires_at}`, {
      path: PATH,
    });
  }
  // a copy: a caller's change never reaches the next call's answer
  return structuredClone(payload);
};

/**
 * Whether a verified allowance covers this order: same buyer wallet and agent, this merchant, and an amount within
 * its per-order maximum (in the allowance's currency; `amountInAllowanceCurrency` already converted, rounded
 * against the buyer).
 * @throws AppError mandate_scope_mismatch, spend_cap_exceeded
 */
export const assertIntentCovers = (
  payload: IntentPayload,
  order: { buyerAddress: string; agent: string; merchant: string; amountInAllowanceCurrency: number },
): void => {
  const mismatch = (what: string) => new AppError("mandate_scope_mismatch", what, { path: PATH });
  if (payload.buyer_address !== order.buyerAddress) {
    throw mismatch(`The intent mandate is for wallet ${payload.buyer_address}, not the checkout's buyer`);
  }
  if (payload.agent !== order.agent) {
    throw mismatch("The intent mandate was signed for another agent (its agent is not your OAuth client id)");
  }
  if (payload.merchants !== "*" && !payload.merchants.includes(order.merchant)) {
    throw mismatch(`The intent mandate does not allow the merchant ${order.merchant}`);
  }
  if (payload.per_order_max !== undefined && order.amountInAllowanceCurrency > payload.per_order_max) {
    throw new AppError(
      "spend_cap_exceeded",
      `This order (${order.amountInAllowanceCurrency} ${payload.currency} minor units) is over the allowance's per-order maximum of ${payload.per_order_max}`,
      { path: PATH, details: { per_order_max: payload.per_order_max, currency: payload.currency } },
    );
  }
};
